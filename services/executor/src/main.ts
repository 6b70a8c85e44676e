import 'reflect-metadata';
import { runProcess, startDistributedService } from '@flex/runtime';
import { ExecutorModule } from './executor.module';

runProcess(() =>
  startDistributedService({
    name: 'executor',
    module: (rt) => ExecutorModule.forRuntime(rt),
    consumesEvents: true,
    concurrency: 32,
  }),
);
