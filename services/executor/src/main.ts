import 'reflect-metadata';
import { runDistributedService } from '@flex/runtime';
import { ExecutorModule } from './executor.module';

void runDistributedService({ name: 'executor', module: (rt) => ExecutorModule.forRuntime(rt), consumesEvents: true, concurrency: 32 }).catch((error) => {
  console.error(error);
  process.exit(1);
});
