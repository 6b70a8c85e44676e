import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { getFacetCatalog, JsonObjectSchema } from '@flex/contracts';
import { fetchCapabilitySnapshot, RUNTIME, type CapabilityView, type ServiceRuntime } from '@flex/runtime';
import type { Response } from 'express';
import { z } from 'zod';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { registryFailure } from '../capabilities/registry-reply';
import { parseBody } from '../hitl/run-command';
import { apiError } from '../http/api-error';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { EnvelopeBuilder } from './envelope-builder';
import { catalogText, sandboxMetadata } from './sandbox-metadata';

const MESSAGE = z.string().max(4_000);

export const StartConversationSchema = z.strictObject({
  /** A template to start from (`GET sandbox/metadata` lists them). */
  templateId: z.string().min(1).max(200).optional(),
  /** A draft to start from instead. */
  draft: JsonObjectSchema.optional(),
  /** What the run should do, in words (the model's first turn). */
  message: MESSAGE.optional(),
});

export const RespondSchema = z.strictObject({
  message: MESSAGE.min(1),
  /** The draft as the developer left it (edited by hand since the last turn). */
  draft: JsonObjectSchema.optional(),
});

const CONVERSATION_ID = /^conv_[0-9a-f]{32}$/;

/**
 * The developer sandbox (spec 003 §11), served only with FLEX_DEV_SANDBOX: the metadata an envelope
 * is built from and the guided conversational builder. It never changes the registry and keeps no
 * draft beyond a conversation in this process's memory; a run starts through `run.stream` as any.
 */
@Controller('api/v1/flex/sandbox')
@UseGuards(AuthGuard)
export class SandboxController {
  constructor(
    @Inject(RUNTIME) private readonly runtime: ServiceRuntime,
    private readonly builder: EnvelopeBuilder,
  ) {}

  @Get('metadata')
  @Roles('client', 'operator')
  @ApiDoc({
    summary: 'Sandbox: the facet catalog, capability snapshots (active and all) and envelope templates',
  })
  async metadata(@Res({ passthrough: true }) res: Response) {
    return sandboxMetadata({
      capabilities: await this.capabilities(res),
      templateDir: this.runtime.config.FLEX_SANDBOX_TEMPLATE_DIR,
      model: this.builder.modelName,
    });
  }

  @Post('envelope/conversation/start')
  @HttpCode(200)
  @Roles('client', 'operator')
  @ApiDoc({
    summary: 'Sandbox: start building an envelope (from a template, a draft, or words)',
    body: {
      schema: StartConversationSchema,
      example: { message: 'Two LinkedIn posts about our summer retreat' },
      required: true,
    },
  })
  start(@Req() req: AuthedRequest) {
    const body = parseBody(StartConversationSchema, req.body);
    return this.builder.start(req.principal.id, body, () => this.catalog());
  }

  @Post('envelope/conversation/:id/respond')
  @HttpCode(200)
  @Roles('client', 'operator')
  @ApiDoc({
    summary: 'Sandbox: one more turn; the model’s JSON Patch is applied to the draft and re-validated',
    body: { schema: RespondSchema, example: { message: 'Make it three variants' }, required: true },
  })
  respond(@Req() req: AuthedRequest, @Param('id') id: string) {
    if (!CONVERSATION_ID.test(id))
      throw apiError(400, 'invalid_conversation_id', 'a conversation id is conv_ and 32 hex digits', {
        path: 'id',
      });
    const body = parseBody(RespondSchema, req.body);
    return this.builder.respond(req.principal.id, id, body, () => this.catalog());
  }

  private async capabilities(res: Response): Promise<CapabilityView[]> {
    try {
      return (await fetchCapabilitySnapshot(this.runtime.messaging, this.runtime.prefix)).capabilities;
    } catch (error) {
      throw registryFailure(error, res);
    }
  }

  /** The model is told about the registry as it is now; without the registry, about the facets only. */
  private async catalog(): Promise<string> {
    const snapshot = await fetchCapabilitySnapshot(this.runtime.messaging, this.runtime.prefix).catch(
      () => undefined,
    );
    return catalogText(snapshot?.capabilities ?? [], getFacetCatalog().list());
  }
}
