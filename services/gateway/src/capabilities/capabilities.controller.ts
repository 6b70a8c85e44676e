import { Controller, Get, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { registrySubjects } from '@flex/bus';
import { CapabilityRegistrationSchema } from '@flex/contracts';
import { z } from 'zod';
import { fetchCapabilitySnapshot, RUNTIME, type ServiceRuntime } from '@flex/runtime';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { apiError } from '../http/api-error';
import { ApiDoc } from '../openapi/api-doc.decorator';

@Controller('api/v1/flex/capabilities')
@UseGuards(AuthGuard)
export class CapabilitiesController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /** Agents that cannot speak NATS register over HTTP; the registry validates exactly as over NATS. */
  @Post('register')
  @Roles('agent')
  @ApiDoc({
    summary: 'Register a capability (agents that cannot speak NATS)',
    body: {
      schema: z.strictObject({
        registration: CapabilityRegistrationSchema,
        instanceId: z.string().optional(),
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
  })
  async register(@Req() req: AuthedRequest) {
    const body = (req.body ?? {}) as { registration?: unknown; instanceId?: unknown };
    const payload = body.registration
      ? body
      : { registration: body, instanceId: (body as { instanceId?: unknown }).instanceId };
    try {
      return await this.runtime.messaging.request(registrySubjects(this.runtime.prefix).register, payload, {
        timeoutMs: 5000,
      });
    } catch (error) {
      const e = error as { code?: string; message?: string; details?: unknown };
      if (e.code === 'invalid_registration')
        throw apiError(400, 'invalid_registration', e.message ?? 'registration rejected', e.details ?? {});
      if (e.code === 'NO_RESPONDERS' || e.code === 'TIMEOUT')
        throw apiError(503, 'registry_unavailable', 'the registry did not answer; try again');
      throw error;
    }
  }

  @Get()
  @Roles('client', 'operator', 'agent')
  @ApiDoc({ summary: 'The live capability registry' })
  async list() {
    try {
      return await fetchCapabilitySnapshot(this.runtime.messaging, this.runtime.prefix);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'NO_RESPONDERS' || code === 'TIMEOUT')
        throw apiError(503, 'registry_unavailable', 'the registry did not answer; try again');
      throw error;
    }
  }
}
