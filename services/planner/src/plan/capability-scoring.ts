import type { CapabilityRegistration, PlannerPolicy, TaskEnvelope } from '@flex/contracts';

/**
 * Score a candidate capability for producing `facet`: facet alignment first, then the envelope's
 * channel / format / language hints, declared cost (weighed by the optimisation objective), and
 * the caller's prefer / avoid lists.
 * Pure and total: ties are broken by capabilityId by the caller.
 */
export function scoreCapability(
  cap: CapabilityRegistration,
  wanted: readonly string[],
  envelope: TaskEnvelope,
  selection: Pick<NonNullable<PlannerPolicy['selection']>, 'prefer' | 'avoid'>,
): number {
  let score = cap.outputContract.filter((f) => wanted.includes(f)).length * 10;
  if (matchesAny(cap.capabilityId, selection.prefer)) score += 25;
  if (matchesAny(cap.capabilityId, selection.avoid)) score -= 25;
  const hints = channelHints(envelope);
  const traits = cap.inputTraits ?? {};
  const traitText = [
    ...(traits.formats ?? []),
    ...(traits.strengths ?? []),
    cap.capabilityId,
    cap.displayName,
  ]
    .join(' ')
    .toLowerCase();
  for (const hint of hints) if (traitText.includes(hint)) score += 3;
  const language =
    typeof envelope.inputs?.language === 'string' ? envelope.inputs.language.toLowerCase() : undefined;
  if (language && traits.languages?.length)
    score += traits.languages.map((l) => l.toLowerCase()).includes(language) ? 4 : -8;
  // The caller's optimisation intent weighs declared cost: thrift for speed and tokens, tier for quality.
  const objective = envelope.policies?.planner?.optimisation?.objective;
  score -= costPenalty(cap) * (objective === 'token_efficiency' || objective === 'speed' ? 3 : 1);
  if (objective === 'quality' && cap.cost?.tier === 'premium') score += 4;
  return score;
}

/** `require`/`forbid`/`prefer`/`avoid` entries match a capability id exactly or as its agent prefix (`LegacyGeneratorAgent`). */
export function matchesAny(capabilityId: string, patterns: readonly string[] | undefined): boolean {
  return (patterns ?? []).some((p) => capabilityId === p || capabilityId.startsWith(`${p}.`));
}

function channelHints(envelope: TaskEnvelope): string[] {
  const inputs = envelope.inputs ?? {};
  return ['channel', 'format', 'platform']
    .map((k) => inputs[k])
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.toLowerCase());
}

function costPenalty(cap: CapabilityRegistration): number {
  const tier = cap.cost?.tier;
  const tierPenalty = tier === 'premium' ? 2 : tier === 'economy' ? 0 : 1;
  return tierPenalty + Math.min((cap.cost?.estimatedTokens ?? 0) / 10_000, 2);
}
