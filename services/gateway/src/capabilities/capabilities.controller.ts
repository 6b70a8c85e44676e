import { Controller, Get, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { registryAgentSubject } from '@flex/bus';
import {
  CapabilityListResponseSchema,
  CapabilityRegisteredResponseSchema,
  CapabilityRegistrationSchema,
  IdentifierSchema,
} from '@flex/contracts';
import { fetchCapabilitySnapshot, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { z } from 'zod';
import type { Response } from 'express';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { registryFailure } from './registry-reply';

@Controller('api/v1/flex/capabilities')
@UseGuards(AuthGuard)
export class CapabilitiesController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /**
   * Agents that cannot speak NATS register over HTTP; the registry validates exactly as over NATS.
   * The token's principal is the identity that registers: the first to register a capability owns
   * it, anyone else is refused (403 `capability_owned`), and each identity's registrations are
   * rate-limited (429 with `Retry-After`).
   */
  @Post('register')
  @Roles('agent')
  @ApiDoc({
    summary: 'Register a capability (agents that cannot speak NATS)',
    body: {
      schema: z.strictObject({
        registration: CapabilityRegistrationSchema,
        instanceId: IdentifierSchema.optional(),
      }),
      example: {
        registration: {
          capabilityId: 'example.knobs',
          version: '1.0.0',
          displayName: 'Knob setter',
          summary: 'Chooses plan knobs from a tone.',
          inputContract: ['toneOfVoice'],
          outputContract: ['planKnobs'],
        },
        instanceId: 'i1',
      },
      required: true,
    },
    response: CapabilityRegisteredResponseSchema,
    errors: { 503: 'the registry did not answer' },
  })
  async register(@Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response) {
    const body = isRecord(req.body) ? req.body : {};
    const payload = body.registration ? body : { registration: body, instanceId: body.instanceId };
    const subject = registerSubject(this.runtime.prefix, req.principal.id, payload.registration);
    try {
      return await this.runtime.messaging.request(subject, payload, { timeoutMs: 5000 });
    } catch (error) {
      throw registryFailure(error, res);
    }
  }

  @Get()
  @Roles('client', 'operator', 'agent')
  @ApiDoc({
    summary: 'The live capability registry: each capability, its status and last heartbeat',
    response: CapabilityListResponseSchema,
    errors: { 503: 'the registry did not answer' },
  })
  async list(@Res({ passthrough: true }) res: Response) {
    try {
      return await fetchCapabilitySnapshot(this.runtime.messaging, this.runtime.prefix);
    } catch (error) {
      throw registryFailure(error, res);
    }
  }
}

/**
 * The subject names the principal and the registration's capability. An id that cannot be a
 * subject token (absent, empty, not text) is not a valid capability id either: a stand-in token
 * takes its place and the registry refuses the body with the id's path.
 */
function registerSubject(prefix: string, principal: string, registration: unknown): string {
  const id = isRecord(registration) ? registration.capabilityId : undefined;
  try {
    return registryAgentSubject(prefix, 'register', principal, typeof id === 'string' ? id : '-');
  } catch {
    return registryAgentSubject(prefix, 'register', principal, '-');
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
