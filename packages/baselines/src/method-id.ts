/**
 * Lower-case ids of every method (the CLI's `--method` values): CALM itself, the
 * comparison methods of the CALM paper (fc, am, ft, em, uni, be) and those of
 * Cormode, Kulkarni and Srivastava (inprr ... inphtcms). The method table
 * (`registry.ts`) must hold exactly these (`satisfies Record<MethodId, ...>`); it
 * lives below the table so that the types every method file needs (`api.ts`) do
 * not import the table, which imports every method.
 */
export type MethodId =
  | "calm"
  | "calm-plus"
  | "fc"
  | "am"
  | "ft"
  | "em"
  | "uni"
  | "be"
  | "inprr"
  | "inpps"
  | "inpht"
  | "margrr"
  | "margps"
  | "marght"
  | "inpem"
  | "inpolh"
  | "inpcms"
  | "inphtcms";
