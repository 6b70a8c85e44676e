import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { AuthGuard, Roles } from '../auth/auth.guard';
import { z } from 'zod';
import { ApiDoc } from './api-doc.decorator';
import { openApiDocument, type Route } from './openapi.document';

const OpenApiDocumentSchema = z.looseObject({
  openapi: z.literal('3.1.0'),
  paths: z.record(z.string(), z.unknown()),
});

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
  @ApiDoc({
    summary: 'This document (OpenAPI 3.1): every route the gateway serves, its schemas from the contracts',
    response: OpenApiDocumentSchema,
  })
  openApi(): Record<string, unknown> {
    return this.document;
  }
}
