import 'reflect-metadata';
import { readModelMigrations } from '@flex/read-models';
import { runProcess, startDistributedService } from '@flex/runtime';
import { RegistryModule } from './registry.module';

runProcess(() =>
  startDistributedService({
    name: 'registry',
    module: (rt) => RegistryModule.forRuntime(rt),
    consumesEvents: false,
    migrations: readModelMigrations,
  }),
);
