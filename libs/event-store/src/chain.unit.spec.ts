import { canonicalCopy } from '@flex/contracts';
import fc from 'fast-check';
import { contentDigest, contentDigestOfCanonical } from './chain';

describe('contentDigestOfCanonical', () => {
  it('is contentDigest, from the canonical JSON of payload and metadata (property)', () => {
    const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '😀', 'é', ''));
    fc.assert(
      fc.property(
        fc.uuid(),
        text,
        text,
        fc.jsonValue(),
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }),
        (id, streamId, type, payload, metadata) => {
          const [p, m] = [canonicalCopy(payload), canonicalCopy(metadata)];
          fc.pre(p !== undefined && m !== undefined);
          const digest = contentDigestOfCanonical({ id, streamId, type }, p!.json, m!.json);
          const fields = { id, streamId, type, payload, metadata };
          if (digest === undefined) expect(() => contentDigest(fields)).toThrow(/lone surrogate/);
          else expect(digest).toBe(contentDigest(fields));
        },
      ),
    );
  });
});
