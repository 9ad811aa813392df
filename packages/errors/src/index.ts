export {
  CalmLdpError,
  CannotRunError,
  InvalidParameterError,
  MalformedReportError,
  type MalformedReportProblem,
} from "./errors.js";
export { fail, formatValue, invalidMessage } from "./format.js";
