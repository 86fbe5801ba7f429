// The `app` blueprint: a web Deployment and its Service, configured from an `endpoints`
// ConfigMap that a PackageVariant may replace by config injection (docs/package-variants.md,
// “Configuration injection”; examples/packagevariant/injection.yaml injects `useast1-endpoints`).
// The pipeline copies the endpoints into the container's environment, so an injected value
// shows up in the Deployment after rendering.

const kptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: A web app and its Service; endpoints come from the injectable ConfigMap "endpoints".
pipeline:
  mutators:
    # endpoints (ConfigMap) → the app container's environment
    - name: apply-endpoints
      image: gcr.io/kpt-fn/apply-replacements:v0.1.1
      configPath: apply-endpoints.yaml
    - name: set-labels
      image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app.kubernetes.io/name: app
`;

// local-config: input to the pipeline only, never applied to a cluster.
// config-injection optional: the defaults below stand unless an injector matches.
const endpoints = `apiVersion: v1
kind: ConfigMap
metadata:
  name: endpoints
  annotations:
    config.kubernetes.io/local-config: "true"
    kpt.dev/config-injection: optional
data:
  database: db.example.internal:5432
  cache: cache.example.internal:6379
`;

const applyEndpoints = `apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: apply-endpoints
  annotations:
    config.kubernetes.io/local-config: "true"
replacements:
  - source:
      kind: ConfigMap
      name: endpoints
      fieldPath: data.database
    targets:
      - select:
          kind: Deployment
          name: app
        fieldPaths:
          - spec.template.spec.containers.[name=app].env.[name=DATABASE_ADDR].value
  - source:
      kind: ConfigMap
      name: endpoints
      fieldPath: data.cache
    targets:
      - select:
          kind: Deployment
          name: app
        fieldPaths:
          - spec.template.spec.containers.[name=app].env.[name=CACHE_ADDR].value
`;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  labels:
    app.kubernetes.io/name: app
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: app
  template:
    metadata:
      labels:
        app.kubernetes.io/name: app
    spec:
      containers:
        - name: app
          image: nginx:1.27-alpine
          ports:
            - name: http
              containerPort: 80
          env:
            # set by the apply-endpoints function from the endpoints ConfigMap
            - name: DATABASE_ADDR
              value: db.example.internal:5432
            - name: CACHE_ADDR
              value: cache.example.internal:6379
          resources:
            requests:
              cpu: 100m
              memory: 64Mi
`;

const service = `apiVersion: v1
kind: Service
metadata:
  name: app
  labels:
    app.kubernetes.io/name: app
spec:
  selector:
    app.kubernetes.io/name: app
  ports:
    - name: http
      port: 80
      targetPort: http
`;

export const APP_V1: Readonly<Record<string, string>> = {
  Kptfile: kptfile,
  "apply-endpoints.yaml": applyEndpoints,
  "endpoints.yaml": endpoints,
  "deployment.yaml": deployment,
  "service.yaml": service,
};
