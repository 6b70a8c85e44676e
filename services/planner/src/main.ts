import 'reflect-metadata';
import { runDistributedService } from '@flex/runtime';
import { PlannerModule } from './planner.module';

void runDistributedService({ name: 'planner', module: (rt) => PlannerModule.forRuntime(rt), consumesEvents: true }).catch((error) => {
  console.error(error);
  process.exit(1);
});
