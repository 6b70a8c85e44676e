import { signV4, sha256Hex } from './sigv4';

// AWS's published examples: the Signature Version 4 test suite's get-vanilla case, and the S3
// API reference's "Examples: Signature Calculations in AWS Signature Version 4" (GET and PUT Object).
describe('AWS Signature Version 4', () => {
  it('signs the test suite get-vanilla request as AWS does', () => {
    const headers = signV4(
      {
        method: 'GET',
        url: new URL('https://example.amazonaws.com/'),
        headers: {},
        payloadHash: sha256Hex(''),
      },
      {
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
        region: 'us-east-1',
        service: 'service',
      },
      '20150830T123600Z',
    );
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ' +
        'SignedHeaders=host;x-amz-date, ' +
        'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  const s3 = {
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    region: 'us-east-1',
    service: 's3',
  };

  it("signs the S3 reference's GET Object example", () => {
    const empty = sha256Hex('');
    const headers = signV4(
      {
        method: 'GET',
        url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
        headers: { Range: 'bytes=0-9', 'x-amz-content-sha256': empty },
        payloadHash: empty,
      },
      s3,
      '20130524T000000Z',
    );
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it("signs the S3 reference's PUT Object example (a path with a character to encode)", () => {
    const body = sha256Hex('Welcome to Amazon S3.');
    const headers = signV4(
      {
        method: 'PUT',
        url: new URL('https://examplebucket.s3.amazonaws.com/test$file.text'),
        headers: {
          Date: 'Fri, 24 May 2013 00:00:00 GMT',
          'x-amz-storage-class': 'REDUCED_REDUNDANCY',
          'x-amz-content-sha256': body,
        },
        payloadHash: body,
      },
      s3,
      '20130524T000000Z',
    );
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, ' +
        'Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
    );
  });

  it('changes with every signed part: method, path, a header, the payload, the secret', () => {
    const base = {
      method: 'PUT',
      url: new URL('https://s3.example.com/bucket/key'),
      headers: { 'x-amz-content-sha256': sha256Hex('a') },
      payloadHash: sha256Hex('a'),
    };
    const sign = (over: Partial<typeof base>, secret = 'secret') =>
      signV4({ ...base, ...over }, { ...s3, secretAccessKey: secret }, '20260101T000000Z').authorization;
    const variants = [
      sign({}),
      sign({ method: 'GET' }),
      sign({ url: new URL('https://s3.example.com/bucket/other') }),
      sign({ headers: { 'x-amz-content-sha256': sha256Hex('b') } }),
      sign({ payloadHash: sha256Hex('b') }),
      sign({}, 'other'),
    ];
    expect(new Set(variants).size).toBe(variants.length);
  });
});
