export { escapeXml, formatMs, renderTimeline, SLOWEST_SHOWN } from './timeline.js'
export type { TimelineData } from './timeline.js'
