import 'reflect-metadata';
import { runDistributedService } from '@flex/runtime';
import { ValidatorModule } from './validator.module';

void runDistributedService({ name: 'validator', module: (rt) => ValidatorModule.forRuntime(rt), consumesEvents: true }).catch((error) => {
  console.error(error);
  process.exit(1);
});
