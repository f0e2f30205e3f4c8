// Imported first by the gate integration tests and the benchmark: Powertools reads these when its
// module loads. Logs of a whole local cloud would bury the test output; metrics are counted in-process
// (LocalMetrics) instead of printed as EMF. Set VIGIL_TEST_LOG_LEVEL=INFO to see the logs.
process.env['POWERTOOLS_LOG_LEVEL'] = process.env['VIGIL_TEST_LOG_LEVEL'] ?? 'SILENT';
process.env['POWERTOOLS_METRICS_DISABLED'] ??= 'true';
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

export {};
