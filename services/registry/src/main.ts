import 'reflect-metadata';
import { readModelMigrations } from '@flex/read-models';
import { runDistributedService } from '@flex/runtime';
import { RegistryModule } from './registry.module';

void runDistributedService({
  name: 'registry',
  module: (rt) => RegistryModule.forRuntime(rt),
  consumesEvents: false,
  migrations: readModelMigrations,
}).catch((error) => {
  console.error(error);
  process.exit(1);
});
