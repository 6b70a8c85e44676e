import 'reflect-metadata';
import { runProcess, startDistributedService } from '@flex/runtime';
import { PlannerModule } from './planner.module';

runProcess(() =>
  startDistributedService({
    name: 'planner',
    module: (rt) => PlannerModule.forRuntime(rt),
    consumesEvents: true,
  }),
);
