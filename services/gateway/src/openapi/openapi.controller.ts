import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { AuthGuard, Roles } from '../auth/auth.guard';
import { ApiDoc } from './api-doc.decorator';
import { openApiDocument, type Route } from './openapi.document';

/** The routes of the gateway (GatewayModule reads them from its controllers). */
export const API_ROUTES = Symbol.for('flex.apiRoutes');

@Controller('api/v1/flex')
@UseGuards(AuthGuard)
export class OpenApiController {
  private readonly document: Record<string, unknown>;

  constructor(@Inject(API_ROUTES) routes: Route[]) {
    this.document = openApiDocument(routes);
  }

  @Get('openapi.json')
  @Roles('client', 'operator', 'agent')
  @ApiDoc({ summary: 'This document: every route the gateway serves' })
  openApi(): Record<string, unknown> {
    return this.document;
  }
}
