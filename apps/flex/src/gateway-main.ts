import 'reflect-metadata';
import { serveGateway } from '@flex/gateway';
import { runProcess } from '@flex/runtime';
import { gatewayWhatIf } from './replay/replay-adapters';

// The distributed gateway with the policy what-if served (POST admin/policy-what-if): the gateway
// service cannot import the other services' decide functions, this composition root can. The
// image's default command, and compose's and the k8s manifests' gateway.
runProcess(() => serveGateway(gatewayWhatIf));
