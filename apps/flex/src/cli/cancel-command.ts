import { api, CliError, type CliContext } from './client';

/** `flex cancel` exits 4 when the run has already ended (completed or failed): it cannot be cancelled. */
export const EXIT_ALREADY_ENDED = 4;

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
 * cancelled (now or before), 4 when it had already completed or failed, 1 on any other error.
 */
export async function cancelCommand(
  ctx: CliContext,
  runId: string,
  options: CancelOptions = {},
): Promise<number> {
  const body = options.reason ? { reason: options.reason } : {};
  let answer: CancelAnswer;
  try {
    answer = (await (
      await api(ctx, 'POST', `runs/${encodeURIComponent(runId)}/cancel`, body)
    ).json()) as CancelAnswer;
  } catch (error) {
    if (error instanceof CliError && error.http?.code === 'run_already_ended')
      throw new CliError(error.message, EXIT_ALREADY_ENDED, error.http);
    throw error;
  }
  if (options.json) ctx.out(JSON.stringify(answer));
  else if (answer.alreadyCancelled)
    ctx.out(`run ${answer.runId} was already cancelled (event ${answer.event.position})`);
  else ctx.out(`run ${answer.runId} cancelled (event ${answer.event.position})`);
  return 0;
}
