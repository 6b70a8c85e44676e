/** Reading the deployment files (docker-compose.yml, deploy/k8s/) for the tests that check them. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';

export type Obj = Record<string, any>;

export const ROOT = path.resolve(__dirname, '..');

export function read(rel: string): string {
  return fs.readFileSync(path.join(ROOT, rel), 'utf8');
}

/** All documents of a YAML file; fails on any parse error or warning. */
export function loadYaml(rel: string, opts: { merge?: boolean } = {}): Obj[] {
  const docs = parseAllDocuments(read(rel), { merge: opts.merge ?? false, uniqueKeys: true });
  if (!Array.isArray(docs)) throw new Error(`${rel}: not a YAML stream`);
  const out: Obj[] = [];
  for (const doc of docs) {
    const problems = [...doc.errors, ...doc.warnings].map((e) => e.message);
    if (problems.length) throw new Error(`${rel}: ${problems.join('; ')}`);
    const value = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

/** The objects of every manifest a kustomization directory lists (not following `..` or other dirs). */
export function kustomizationObjects(dir: string): Array<{ file: string; obj: Obj }> {
  const [kustomization] = loadYaml(`${dir}/kustomization.yaml`);
  return (kustomization.resources as string[])
    .filter((r) => /\.ya?ml$/.test(r))
    .flatMap((f) => loadYaml(`${dir}/${f}`).map((obj) => ({ file: `${dir}/${f}`, obj })));
}

/**
 * The text of a file a container reads, mounted from a ConfigMap: `{ configMap, key, text }`, or
 * undefined when no ConfigMap volume is mounted at `file` (whole directory or `subPath`).
 */
export function mountedConfigFile(
  workload: Obj,
  file: string,
  objects: Obj[],
): { configMap: string; key: string; text: string } | undefined {
  const spec = workload.spec.template.spec;
  const c = spec.containers[0];
  for (const m of (c.volumeMounts ?? []) as Obj[]) {
    const volume = (spec.volumes as Obj[]).find((v) => v.name === m.name);
    const configMap = volume?.configMap?.name as string | undefined;
    if (!configMap) continue;
    const key = m.subPath
      ? m.mountPath === file
        ? m.subPath
        : undefined
      : path.posix.relative(m.mountPath, file);
    if (!key || key.startsWith('..')) continue;
    const data = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === configMap)?.data;
    if (typeof data?.[key] === 'string') return { configMap, key, text: data[key] };
  }
  return undefined;
}

/** What nats-server runs with: the file `-c` names, and the files it `include`s beside it. */
export function natsServerConfig(
  sts: Obj,
  objects: Obj[],
): { file: string; text: string; includes: string[] } {
  const args: string[] = sts.spec.template.spec.containers[0].args;
  const file = args[args.indexOf('-c') + 1];
  const text = mountedConfigFile(sts, file, objects)?.text ?? '';
  const includes = [...text.matchAll(/^\s*include\s+(\S+)\s*$/gm)].map((m) =>
    path.posix.join(path.posix.dirname(file), m[1]),
  );
  return { file, text, includes };
}
