// testTimeout is a global jest option, not a per-project one: e2e steps wait on controllers.
jest.setTimeout(120_000);
