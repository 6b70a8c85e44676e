import { defaultFacetCompiler } from '@flex/facets';
import { recruitingContext, recruitingInputs } from './test-support/recruiting-brief';
import { buildBriefing, ctaFocusOf } from './strategy-manager';

describe('StrategyManagerAgent.briefing', () => {
  const briefing = buildBriefing(recruitingInputs, recruitingContext);

  it('produces outputs that match the catalog facets exactly', () => {
    const contract = defaultFacetCompiler().compile(
      ['writerBrief', 'planKnobs', 'strategicRationale'],
      'output',
    );
    expect(contract.validate(briefing)).toEqual([]);
  });

  it('pulls company, core value, recent event and other facts out of the asset bundle', () => {
    const points = briefing.writerBrief.keyPoints;
    expect(points).toContain('Company: Acme Robotics.');
    expect(points).toContain('Core value: Ownership at every level.');
    expect(points).toContain('Recent news: Acme Robotics opened a new engineering hub in Berlin.');
    expect(points.some((p) => p.startsWith('Benefits: Four-day work week'))).toBe(true);
    expect(points.some((p) => p.includes('Every engineer owns a service end to end'))).toBe(true);
    expect(points).toContain('Success criterion: Qualified applicants mention the post.');
  });

  it('builds the angle from the facts, the audience and the objective', () => {
    const { angle } = briefing.writerBrief;
    expect(angle).toContain('Acme Robotics');
    expect(angle).toContain('ownership at every level');
    expect(angle).toContain('senior backend engineers');
    expect(angle).toContain('recruit senior backend engineers for the Berlin platform team');
  });

  it('turns special instructions into constraints and one direction per variant', () => {
    const { constraints } = briefing.writerBrief;
    expect(constraints).toContain('Write in a friendly tone.');
    expect(constraints).toContain('Avoid claims about salaries.');
    expect(constraints).toContain('Variant A should highlight team culture.');
    expect(constraints).toContain('Variant B should highlight career growth.');
    expect(briefing.planKnobs).toEqual({ variantCount: 2, ctaFocus: 'apply', length: 'medium' });
  });

  it('explains itself and names its risks', () => {
    expect(briefing.strategicRationale.northStar).toMatch(
      /^Recruit senior backend engineers.*ownership at every level/,
    );
    expect(briefing.strategicRationale.whyItWorks).toContain('A: team culture');
    expect(briefing.strategicRationale.risks?.some((r) => r.includes('Avoid claims about salaries'))).toBe(
      true,
    );
  });

  it('reads an explicit variant count and length from the instructions', () => {
    const b = buildBriefing(recruitingInputs, {
      objective: 'x',
      specialInstructions: ['Write three variants.', 'Keep it short.'],
    });
    expect(b.planKnobs.variantCount).toBe(3);
    expect(b.planKnobs.length).toBe('short');
  });

  it('works from the envelope objective alone and says the copy may be generic', () => {
    const b = buildBriefing({}, { objective: 'Announce the launch of our compliance copilot' });
    expect(b.writerBrief.keyPoints).toEqual(['Objective: Announce the launch of our compliance copilot.']);
    expect(b.planKnobs.ctaFocus).toBe('learn_more');
    expect(b.strategicRationale.risks?.[0]).toMatch(/hold usable facts/);
    expect(
      defaultFacetCompiler()
        .compile(['writerBrief', 'planKnobs', 'strategicRationale'], 'output')
        .validate(b),
    ).toEqual([]);
  });

  it('is deterministic', () => {
    expect(buildBriefing(recruitingInputs, recruitingContext)).toEqual(briefing);
  });

  it.each([
    ['Hire three data engineers', 'apply'],
    ['Get registrations for our webinar', 'register'],
    ['Generate demo requests from CFOs', 'book_demo'],
    ['Grow brand awareness', 'follow'],
    ['Start a conversation', 'engage'],
  ])('reads the CTA focus of "%s" as %s', (objective, focus) => {
    expect(ctaFocusOf(objective)).toBe(focus);
  });
});
