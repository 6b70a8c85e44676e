import { Controller, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { registrySubjects } from '@flex/bus';
import { AssignOwnerRequestSchema, OwnerAssignedResponseSchema } from '@flex/contracts';
import { RUNTIME, type ServiceRuntime } from '@flex/runtime';
import type { Response } from 'express';
import { AuthGuard, Roles, type AuthedRequest } from '../auth/auth.guard';
import { parseBody } from '../hitl/run-command';
import { ApiDoc } from '../openapi/api-doc.decorator';
import { registryFailure } from './registry-reply';

@Controller('api/v1/flex/admin/capabilities')
@UseGuards(AuthGuard)
export class CapabilityOwnerController {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /**
   * Give a capability to `owner`: from now on only that identity may register, heartbeat and
   * deregister it. A capability nobody registered yet is reserved for it. Recorded as
   * `capability_owner_assigned` with the admin who did it.
   */
  @Post('owner')
  @HttpCode(200)
  @Roles('admin')
  @ApiDoc({
    summary: 'Give a capability to an identity (a NATS identity, or a token principal `tok_…`)',
    body: {
      schema: AssignOwnerRequestSchema,
      example: { capabilityId: 'example.knobs', owner: 'agents' },
      required: true,
    },
    response: OwnerAssignedResponseSchema,
    errors: { 503: 'the registry did not answer' },
  })
  async assign(@Req() req: AuthedRequest, @Res({ passthrough: true }) res: Response) {
    const body = parseBody(AssignOwnerRequestSchema, req.body);
    try {
      return await this.runtime.messaging.request(
        registrySubjects(this.runtime.prefix).assignOwner,
        { ...body, assignedBy: req.principal.id },
        { timeoutMs: 5000 },
      );
    } catch (error) {
      throw registryFailure(error, res);
    }
  }
}
