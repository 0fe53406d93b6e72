export { diagnose } from './checks.js'
export type { Check, DoctorOptions } from './checks.js'
export { renderDoctorJson, renderDoctorReport } from './report.js'
