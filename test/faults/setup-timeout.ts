// A short scenario starts its own control plane and module, then runs its faults to the end.
jest.setTimeout(900_000);
