import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { PROJECT_ROOT } from '../../src/paths.js';

const DIR = join(PROJECT_ROOT, 'deploy', 'kubernetes');

/** Every object of the manifests, by kind; each parses without error or warning. */
function manifests(): Map<string, any> {
  const byKind = new Map<string, any>();
  for (const file of readdirSync(DIR).filter((name) => name.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(readFileSync(join(DIR, file), 'utf8'))) {
      assert.deepEqual(doc.errors, [], file);
      assert.deepEqual(doc.warnings, [], file);
      const object = doc.toJS();
      assert.ok(object?.kind, `${file} has a kind`);
      assert.ok(!byKind.has(object.kind), `one ${object.kind}`);
      byKind.set(object.kind, object);
    }
  }
  return byKind;
}

/** The configuration the ConfigMap's application.yml gives, read as the service reads it. */
function configOf(configMap: any, variables: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'lqs-manifests-'));
  try {
    const file = join(dir, 'application.yml');
    writeFileSync(file, configMap.data['application.yml']);
    const warnings: string[] = [];
    const config = loadConfig({ ...variables, LQS_CONFIG_FILE: file }, file, (w) => warnings.push(w));
    assert.deepEqual(warnings, [], 'every key of the example is one the service reads');
    return config;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  const byKind = manifests();
  const deployment = byKind.get('Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const portByName = new Map<string, number>(container.ports.map((p: any) => [p.name, p.containerPort]));

  it('lists every manifest in the kustomization', () => {
    const files = readdirSync(DIR).filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml');
    assert.deepEqual([...byKind.get('Kustomization').resources].sort(), files.sort());
    assert.deepEqual([...byKind.keys()].sort(), ['ConfigMap', 'Deployment', 'Kustomization', 'PodDisruptionBudget', 'Service']);
  });

  it('probes the health routes on the port the configuration listens on', () => {
    // the Deployment's variables, the Secret's password as `secret`
    const variables = Object.fromEntries(container.env.map((e: any) => [e.name, e.value ?? 'secret']));
    const config = configOf(byKind.get('ConfigMap'), variables);
    assert.equal(container.readinessProbe.httpGet.path, '/health/readiness');
    assert.equal(container.livenessProbe.httpGet.path, '/health/liveness');
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      assert.equal(portByName.get(probe.httpGet.port), config.port);
    }
    assert.match(config.db.url, /^postgres:\/\/mirror_api:secret@mirror-postgres:5432\/mirror_node$/);
    const mount = container.volumeMounts.find((m: any) => m.name === 'config');
    assert.equal(variables.LQS_CONFIG_FILE, `${mount.mountPath}/application.yml`);
  });

  it('runs as the image user, non-root, on a read-only root filesystem, with resources', () => {
    const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    const user = /^USER (\d+):(\d+)$/m.exec(dockerfile);
    assert.ok(user, 'the Dockerfile sets a numeric USER');
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(String(pod.securityContext.runAsUser), user[1]);
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    assert.ok(container.resources.requests.cpu && container.resources.requests.memory && container.resources.limits.memory);
    assert.match(dockerfile, /HEALTHCHECK [\s\S]*'\/health\/liveness'/);
  });

  it('selects the pods in the Service and the PodDisruptionBudget, on the named port', () => {
    const labels = deployment.spec.template.metadata.labels;
    assert.deepEqual(deployment.spec.selector.matchLabels, labels);
    const service = byKind.get('Service');
    assert.deepEqual(service.spec.selector, labels);
    assert.ok(portByName.has(service.spec.ports[0].targetPort));
    const budget = byKind.get('PodDisruptionBudget');
    assert.deepEqual(budget.spec.selector.matchLabels, labels);
    assert.ok(budget.spec.minAvailable < deployment.spec.replicas, 'a node can be drained');
  });
});
