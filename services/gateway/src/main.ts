import 'reflect-metadata';
import { runProcess } from '@flex/runtime';
import { serveGateway } from './serve-gateway';

// The gateway alone: everything but the policy what-if, which needs the other services' decide
// functions (`apps/flex/dist/gateway-main.js` serves it too, and is what the image runs).
runProcess(() => serveGateway());
