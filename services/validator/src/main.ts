import 'reflect-metadata';
import { runProcess, startDistributedService } from '@flex/runtime';
import { ValidatorModule } from './validator.module';

runProcess(() =>
  startDistributedService({
    name: 'validator',
    module: (rt) => ValidatorModule.forRuntime(rt),
    consumesEvents: true,
  }),
);
