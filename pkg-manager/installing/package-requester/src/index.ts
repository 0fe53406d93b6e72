export { PackageFetcher } from './package-fetcher.js'
export type { PackageFetcherOptions, PackageToFetch, StoredPackage } from './package-fetcher.js'
export { PipelineTrace } from './pipeline-trace.js'
export type { PipelineStage, TraceData, TraceSample, TraceSpan } from './pipeline-trace.js'
