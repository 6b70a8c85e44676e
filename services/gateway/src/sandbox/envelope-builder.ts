import { Inject, Injectable } from '@nestjs/common';
import { RUNTIME, secretKeyPattern, type ServiceRuntime } from '@flex/runtime';
import { z } from 'zod';
import { apiError } from '../http/api-error';
import { askModel, builderModelFrom, type BuilderModel, type ChatMessage } from './builder-model';
import { guidance, turnMessages } from './builder-prompt';
import { reviewDraft, type DraftReview } from './draft-review';
import { applyPatch, copyJson, type PatchOperation } from './json-patch';
import { sandboxTemplates } from './sandbox-templates';

/** One conversation: whose it is, its draft, what was said. Kept in memory only, never stored. */
interface Conversation {
  id: string;
  owner: string;
  draft: unknown;
  history: ChatMessage[];
  touchedAt: number;
}

/** What a turn answers: the draft after the reply's patch, re-validated, and what is still missing. */
export interface BuilderTurn extends DraftReview {
  conversationId: string;
  mode: 'llm' | 'guided';
  draft: unknown;
  reply: { message: string; patch: PatchOperation[]; applied: boolean; error?: string };
  fallbackReason?: string;
}

const MAX_CONVERSATIONS = 200;
const IDLE_MS = 60 * 60 * 1000;
const KEPT_MESSAGES = 20;
const NO_MODEL =
  'No model is configured (FLEX_LLM_BASE_URL), so the builder does not read prose: edit the draft, or send JSON Patch operations.';

const PatchSchema = z.array(
  z.strictObject({
    op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
    path: z.string(),
    value: z.unknown().optional(),
    from: z.string().optional(),
  }),
);

/**
 * The guided conversational builder (spec 003 §11, developer sandbox). Each turn, the model answers
 * with JSON Patch operations; they are applied to the draft, which is validated again as
 * `run.stream` would. With no model configured (or one that fails), the builder starts from a
 * template and answers with missing-field guidance; JSON Patch typed in still applies.
 */
@Injectable()
export class EnvelopeBuilder {
  private readonly conversations = new Map<string, Conversation>();
  private readonly model: BuilderModel | undefined;
  private readonly secretKeyPattern: RegExp;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.model = builderModelFrom(runtime.config);
    this.secretKeyPattern = secretKeyPattern(runtime.config);
  }

  get modelName(): string | undefined {
    return this.model?.model;
  }

  async start(
    owner: string,
    body: { templateId?: string; draft?: Record<string, unknown>; message?: string },
    catalog: () => Promise<string>,
  ): Promise<BuilderTurn> {
    this.forgetIdle();
    const conversation: Conversation = {
      id: `conv_${this.runtime.ids.uuid().replace(/-/g, '')}`,
      owner,
      draft: body.draft ?? this.startingDraft(body.templateId),
      history: [],
      touchedAt: this.now(),
    };
    this.conversations.set(conversation.id, conversation);
    return this.turn(conversation, body.message?.trim(), catalog);
  }

  async respond(
    owner: string,
    id: string,
    body: { message: string; draft?: Record<string, unknown> },
    catalog: () => Promise<string>,
  ): Promise<BuilderTurn> {
    this.forgetIdle();
    const conversation = this.conversations.get(id);
    if (!conversation || conversation.owner !== owner)
      throw apiError(404, 'conversation_not_found', `no conversation ${id} (they end after an hour idle)`, {
        id,
      });
    if (body.draft !== undefined) conversation.draft = body.draft;
    conversation.touchedAt = this.now();
    return this.turn(conversation, body.message.trim(), catalog);
  }

  /** A template's envelope; with no template named, nothing (a model builds it) or, with no model, the first. */
  private startingDraft(templateId: string | undefined): unknown {
    const { templates } = sandboxTemplates(this.runtime.config.FLEX_SANDBOX_TEMPLATE_DIR);
    if (templateId === undefined) return this.model ? {} : copyJson(templates[0].envelope);
    const template = templates.find((t) => t.id === templateId);
    if (!template)
      throw apiError(404, 'template_not_found', `no template ${templateId}`, { path: 'templateId' });
    return copyJson(template.envelope);
  }

  private async turn(
    c: Conversation,
    message: string | undefined,
    catalog: () => Promise<string>,
  ): Promise<BuilderTurn> {
    const mode = this.model ? 'llm' : 'guided';
    if (!message) return this.answer(c, mode, guidance(this.review(c), 'Here is the draft.'));
    if (!this.model) return this.typedPatch(c, message, NO_MODEL);
    const messages = turnMessages({
      catalog: await catalog(),
      history: c.history,
      draft: c.draft,
      review: this.review(c),
      message,
      secretKeyPattern: this.secretKeyPattern,
    });
    const reply = await askModel(this.model, messages);
    if (!reply.ok)
      return {
        ...this.typedPatch(c, message, `The model gave no usable answer (${reply.reason}).`),
        fallbackReason: reply.reason,
      };
    const said = JSON.stringify({ message: reply.message, patch: reply.patch });
    c.history = [...c.history, ...exchange(message, said)].slice(-KEPT_MESSAGES);
    return this.patched(c, 'llm', reply.message, reply.patch);
  }

  /** Without a model's answer, a message that is a JSON Patch array still edits the draft. */
  private typedPatch(c: Conversation, message: string, why: string): BuilderTurn {
    const parsed = PatchSchema.safeParse(parseJson(message));
    if (!parsed.success) return this.answer(c, 'guided', guidance(this.review(c), why));
    const turn = this.patched(c, 'guided', '', parsed.data);
    const text = turn.reply.applied
      ? `Applied your patch. ${guidance(turn, '')}`.trim()
      : `Your patch did not apply: ${turn.reply.error ?? 'it is empty'}.`;
    return { ...turn, reply: { ...turn.reply, message: text } };
  }

  /** Apply the patch (all or nothing), then validate the draft again. */
  private patched(
    c: Conversation,
    mode: BuilderTurn['mode'],
    message: string,
    patch: PatchOperation[],
  ): BuilderTurn {
    const result = applyPatch(c.draft, patch);
    if (result.ok) c.draft = result.value;
    const error = result.ok ? undefined : result.message;
    return {
      ...this.answer(c, mode, message),
      reply: { message, patch, applied: result.ok && patch.length > 0, error },
    };
  }

  private answer(c: Conversation, mode: BuilderTurn['mode'], message: string): BuilderTurn {
    return {
      conversationId: c.id,
      mode,
      draft: c.draft,
      ...this.review(c),
      reply: { message, patch: [], applied: false },
    };
  }

  private review(c: Conversation): DraftReview {
    return reviewDraft(c.draft, this.secretKeyPattern);
  }

  /** Conversations idle for an hour are forgotten, and at most MAX_CONVERSATIONS are kept (oldest go first). */
  private forgetIdle(): void {
    const now = this.now();
    for (const [id, c] of this.conversations) if (now - c.touchedAt > IDLE_MS) this.conversations.delete(id);
    const byAge = [...this.conversations.values()].sort((a, b) => a.touchedAt - b.touchedAt);
    for (const c of byAge.slice(0, Math.max(0, byAge.length - MAX_CONVERSATIONS + 1)))
      this.conversations.delete(c.id);
  }

  private now(): number {
    return this.runtime.clock.now().getTime();
  }
}

/** A turn as the model's history keeps it: the developer's words, then the model's answer. */
function exchange(user: string, assistant: string): ChatMessage[] {
  return [
    { role: 'user', content: user },
    { role: 'assistant', content: assistant },
  ];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
