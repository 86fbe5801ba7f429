import typescriptEslint from "@typescript-eslint/eslint-plugin";
import tsParser from "@typescript-eslint/parser";
import path from "node:path";
import { fileURLToPath } from "node:url";
import js from "@eslint/js";
import { FlatCompat } from "@eslint/eslintrc";
import globals from "globals";

const __filename = fileURLToPath(import.meta.url);
const __dirname = path.dirname(__filename);
const compat = new FlatCompat({
  baseDirectory: __dirname,
  recommendedConfig: js.configs.recommended,
  allConfig: js.configs.all,
});

export default [
  {
    // Only the module's own sources are type-linted (what `pepr build` checks); test, hack and
    // bench files are outside tsconfig.json and would each need a program of their own.
    ignores: [
      "**/node_modules",
      "**/dist",
      "test/**",
      "hack/**",
      "bench/**",
      ".local/**",
      "crd-types/**",
    ],
  },
  ...compat.extends("eslint:recommended", "plugin:@typescript-eslint/recommended"),
  {
    plugins: {
      "@typescript-eslint": typescriptEslint,
    },

    languageOptions: {
      parser: tsParser,
      parserOptions: {
        projectService: {
          allowDefaultProject: ["eslint.config.mjs"],
        },
        tsconfigRootDir: __dirname,
        sourceType: "module",
      },
      globals: {
        ...globals.node,
      },
    },

    rules: {
      "@typescript-eslint/no-floating-promises": "error",
    },
  },
  {
    // YAML a tenant wrote is parsed only through lib/krm/yaml-parse.ts, which refuses nesting
    // deep enough to overflow the stack (and kill the process) before it is composed.
    files: ["lib/**/*.ts", "capabilities/**/*.ts", "pepr.ts"],
    ignores: ["lib/krm/yaml-parse.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "yaml",
              importNames: ["parse", "parseDocument", "parseAllDocuments", "Parser", "Composer"],
              message: "Parse YAML with lib/krm/yaml-parse.ts: it bounds the nesting depth.",
            },
          ],
        },
      ],
    },
  },
  {
    // lib/ is framework-free logic that takes the cluster, clocks and settings as arguments;
    // capabilities/ wires it to Pepr and the API server. A type import counts too
    // (allowTypeImports is off): it still ties lib/ to the framework's shapes.
    files: ["lib/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(pepr|kubernetes-fluent-client)(/.*)?$",
              message: "lib/ stays framework-free: take what it needs as an argument.",
            },
            {
              regex: "(^|/)capabilities(/|$)",
              message: "lib/ must not import capabilities/: move the code to lib/ or pass it in.",
            },
          ],
        },
      ],
    },
  },
];
