import { api, type CliContext } from './client';

export interface CancelOptions {
  reason?: string;
  json?: boolean;
}

interface CancelAnswer {
  runId: string;
  alreadyCancelled: boolean;
  event: { id: string; position: number };
}

/**
 * `flex cancel <runId> [--reason text] [--json]`: cancel a run that has not ended. Exit 0 when it is
 * cancelled (now or before); a run that had already completed or failed is the API's 409 (exit 1).
 */
export async function cancelCommand(
  ctx: CliContext,
  runId: string,
  options: CancelOptions = {},
): Promise<number> {
  const body = options.reason ? { reason: options.reason } : {};
  const answer = (await (
    await api(ctx, 'POST', `runs/${encodeURIComponent(runId)}/cancel`, body)
  ).json()) as CancelAnswer;
  if (options.json) ctx.out(JSON.stringify(answer));
  else if (answer.alreadyCancelled)
    ctx.out(`run ${answer.runId} was already cancelled (event ${answer.event.position})`);
  else ctx.out(`run ${answer.runId} cancelled (event ${answer.event.position})`);
  return 0;
}
