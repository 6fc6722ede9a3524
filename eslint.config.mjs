// Type-aware lint: the rule that matters most in a daemon is no-floating-promises
// (an unawaited rejection is a crash or a silent loss).
import tseslint from 'typescript-eslint';

export default tseslint.config({ ignores: ['dist/**', 'node_modules/**', 'models/**', 'bench/out/**'] }, ...tseslint.configs.recommended, {
  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  rules: {
    '@typescript-eslint/no-floating-promises': [
      'error',
      // node:test's describe/it return promises the runner itself awaits.
      { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
    ],
    '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
  },
});
