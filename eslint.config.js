// The lint gate of `npm run lint` (and .ci/run): typescript-eslint's recommended rules, the layout's import
// boundaries, and the line-length limit; formatting itself is Prettier's (`npm run format:check`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The package's entry points (package.json `exports`): the only lib/ modules the CLI and api/ may import. */
const entryPoints = ['index', 'factory/jobs/index', 'store/index', 'inventory/index', 'service/index', 'demo/index'];
// A relative import of any other module under lib/ (gitignore-style groups cannot match the leading ../).
const notAnEntryPoint = `^(\\.\\./)+lib/(?!(${entryPoints.join('|')})\\.js$)`;

/** Imports a folder may not make: the tree's layers (README "Layout"). */
const boundaries = [
  {
    files: ['lib/core/**'],
    banned: ['**/factory/**', '**/store/**', '**/inventory/**', '**/service/**', '**/config/**', '**/cli/**'],
    why: 'lib/core is the bottom layer',
  },
  {
    files: ['lib/store/**'],
    banned: ['**/factory/**', '**/inventory/**', '**/service/**', '**/config/**', '**/cli/**'],
    why: 'a store keeps state and atomic steps only: core and utils below it, the configuration above',
  },
  {
    files: ['lib/config/**'],
    banned: ['**/factory/**', '**/store/**', '**/inventory/**', '**/service/**', '**/cli/**'],
    why: 'the configuration imports no feature folder',
  },
  { files: ['lib/factory/**'], banned: ['**/inventory/**', '**/service/**', '**/cli/**'], why: 'the engine knows nothing of the service around it' },
  {
    files: ['cli/**', 'api/**'],
    regex: notAnEntryPoint,
    why: "the CLI and api/ use the package's public entry points only (package.json exports)",
  },
  { files: ['lib/inventory/**'], banned: ['**/dispatch/**', '**/service/**', '**/cli/**'], why: 'the inventory is below the queues and the HTTP service' },
  {
    files: ['lib/dispatch/**'],
    banned: ['**/service/**', '**/cli/**'],
    why: 'the queue engines run slices of syncs; the HTTP service and the CLI choose them',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tmp/**', 'coverage/**', '.vercel/**', 'public/vendor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        queueMicrotask: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        document: 'readonly',
        window: 'readonly',
        sessionStorage: 'readonly',
        navigator: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        setImmediate: 'readonly',
        globalThis: 'readonly',
        Event: 'readonly',
        HTMLElement: 'readonly',
        location: 'readonly',
        history: 'readonly',
        Blob: 'readonly',
        FormData: 'readonly',
        URLSearchParams: 'readonly',
        ReadableStream: 'readonly',
        WritableStream: 'readonly',
        crypto: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' },
      ],
      'max-len': ['error', { code: 160, comments: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
      'no-console': 'error',
      // Deliberate here: messages and URL checks strip or refuse control characters by their code points.
      'no-control-regex': 'off',
      // The codebase's `(a, b)` sequence in an arrow body or a one-line branch reads as one step.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
    },
  },
  {
    // The CLI's output, the benchmarks' reports and scripts print by design.
    files: ['cli/**', 'bench/**', 'scripts/**', 'bin/**', 'public/**', '**/__tests__/**', 'test/**'],
    rules: { 'no-console': 'off', 'no-useless-assignment': 'off' },
  },
  {
    // Configuration is read once, at the edge (lib/config/process-config.ts for the functions, the CLI's commands),
    // and passed down: nothing in the library or the routes reads the environment itself.
    files: ['lib/**', 'api/**'],
    ignores: ['**/__tests__/**', 'lib/config/process-config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'read the configuration the service context carries (lib/config/process-config.ts reads the environment once)',
        },
      ],
    },
  },
  {
    // Tests pass a configuration (testDeployment, createService) instead of changing the process's environment.
    files: ['**/__tests__/**', 'test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "AssignmentExpression > MemberExpression.left[object.object.name='process'][object.property.name='env']",
          message: 'pass a configuration instead of editing process.env',
        },
        {
          selector: "AssignmentExpression > MemberExpression.left[object.name='process'][property.name='env']",
          message: 'pass a configuration instead of replacing process.env',
        },
        {
          selector: "UnaryExpression[operator='delete'] > MemberExpression[object.object.name='process'][object.property.name='env']",
          message: 'pass a configuration instead of editing process.env',
        },
        {
          selector:
            "CallExpression[callee.object.name='Object'][callee.property.name='assign'] > MemberExpression.arguments:first-child[object.name='process'][property.name='env']",
          message: 'pass a configuration instead of editing process.env',
        },
      ],
    },
  },
  ...boundaries.map(({ files, banned, regex, why }) => ({
    files,
    ignores: ['**/__tests__/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [regex ? { regex, message: why } : { group: banned, message: why }] }] },
  })),
);
