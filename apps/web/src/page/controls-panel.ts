import { HARNESS_METHOD_IDS } from "@calm-ldp/experiments";
import type { PipelineRequest, RandomSource, UploadedData } from "./api.js";
import { byId } from "./dom.js";
import {
  FormValueError,
  parseEpsInput,
  parseInspectInput,
  type SyntheticKnobs,
  syntheticSpec,
} from "./form-values.js";
import { uploadSpec } from "./parse-upload.js";

/**
 * The controls panel: the method checkboxes, the data source's knobs, and the
 * form read into a pipeline request (or a `FormValueError` shown beside its field).
 */

const METHOD_NAMES: Record<string, string> = {
  calm: "CALM: consistent adaptive local marginals",
};

/** Checked when the page opens (as `pnpm demo` compares them); every other harness method is offered unchecked. */
const DEFAULT_METHODS = ["calm", "calm-plus", "fc", "am", "ft", "uni"];

const form = byId<HTMLFormElement>("controls");
const formError = byId("form-error");

/** One checkbox per harness method offered at build time (the defaults checked). O(methods). */
export function buildMethodChoices(): void {
  const box = byId("methods");
  for (const id of HARNESS_METHOD_IDS) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.name = "method";
    input.value = id;
    input.checked = DEFAULT_METHODS.includes(id) || HARNESS_METHOD_IDS.length === 1;
    label.append(input, ` ${id}`);
    if (METHOD_NAMES[id]) label.title = METHOD_NAMES[id]!;
    box.append(label);
  }
}

/** A number input's value, checked against its min/max (and integrality): a `FormValueError` naming the field's label. */
function numberField(id: string, integer: boolean): number {
  const input = byId<HTMLInputElement>(id);
  const name = document.querySelector(`label[for="${id}"]`)?.textContent ?? id;
  const value = Number(input.value);
  const min = input.min === "" ? Number.NEGATIVE_INFINITY : Number(input.min);
  const max = input.max === "" ? Number.POSITIVE_INFINITY : Number(input.max);
  if (input.value.trim() === "" || !Number.isFinite(value) || (integer && !Number.isInteger(value)))
    throw new FormValueError(
      id,
      `${name} must be ${integer ? "an integer" : "a number"} (got "${input.value}")`,
    );
  if (value < min || value > max)
    throw new FormValueError(
      id,
      `${name} must be between ${input.min || "-∞"} and ${input.max || "∞"} (got ${value})`,
    );
  return value;
}

function checkedValue(name: string): string {
  return (form.querySelector(`input[name="${name}"]:checked`) as HTMLInputElement).value;
}

/**
 * The data part of the form: an uploaded file (its format, partition and cap c)
 * or the synthetic knobs, as the harness's data spec. Reads the file once.
 */
async function readData(): Promise<{
  data: string;
  upload: UploadedData | undefined;
  c: number | undefined;
}> {
  const source = byId<HTMLSelectElement>("source").value;
  let data: string;
  let upload: UploadedData | undefined;
  let c: number | undefined;
  if (source === "upload") {
    const file = byId<HTMLInputElement>("upload-file").files?.[0];
    if (!file) throw new FormValueError("upload-file", "Choose a file to upload, or pick synthetic data");
    const format = byId<HTMLSelectElement>("upload-format").value as "csv" | "adult";
    const partition = byId<HTMLSelectElement>("upload-partition").value as "binary" | "capped";
    upload = {
      format,
      name: file.name,
      text: await file.text(),
      ...(format === "adult" ? { partition } : {}),
    };
    if (!(format === "adult" && partition === "binary")) c = numberField("upload-cap", true);
    data = uploadSpec(upload);
  } else {
    const knobs: SyntheticKnobs =
      source === "synthetic-bn"
        ? {
            kind: "synthetic-bn",
            strength: numberField("bn-strength", false),
            parents: numberField("bn-parents", true),
            cardinality: numberField("bn-cardinality", true),
            seed: numberField("bn-seed", true),
            base: byId<HTMLSelectElement>("bn-base").value as "random" | "uniform",
          }
        : {
            kind: "synthetic-iid",
            p: numberField("iid-p", false),
            cardinality: numberField("iid-cardinality", true),
          };
    data = syntheticSpec(knobs);
  }
  return { data, upload, c };
}

/** The form as a pipeline request (config, random source, inspected table, upload); `FormValueError` on a bad field. */
export async function readRequest(): Promise<PipelineRequest> {
  const n = numberField("n", true);
  const d = numberField("d", true);
  const k = numberField("k", true);
  if (k > d) throw new FormValueError("k", `Marginal size k must be at most d = ${d} (got ${k})`);
  const eps = parseEpsInput(byId<HTMLInputElement>("eps").value);
  const methods = Array.from(
    form.querySelectorAll<HTMLInputElement>('input[name="method"]:checked'),
    (i) => i.value,
  );
  if (methods.length === 0) throw new FormValueError("methods", "Choose at least one method");
  const queriesText = byId<HTMLInputElement>("queries").value.trim();
  const queries = queriesText === "all" ? "all" : Number(queriesText);
  if (queries !== "all" && !(Number.isInteger(queries) && queries >= 1 && queries <= 10000))
    throw new FormValueError(
      "queries",
      `Queries must be an integer from 1 to 10000 or "all" (got "${queriesText}")`,
    );
  const reps = numberField("reps", true);
  const seed = numberField("seed", true);
  const inspect = parseInspectInput(byId<HTMLInputElement>("inspect").value, d, k);
  const random = checkedValue("random") as RandomSource;
  const path = checkedValue("path") as "counts" | "per-user";
  const { data, upload, c } = await readData();
  return {
    config: { data, n, d, k, ...(c !== undefined ? { c } : {}), eps, methods, queries, reps, seed, path },
    random,
    inspect,
    ...(upload ? { upload } : {}),
  };
}

/** Shows `error` under the form and marks (and focuses) its field as invalid. */
export function showFormError(error: FormValueError): void {
  formError.textContent = error.message;
  const field = document.getElementById(error.field);
  if (field) {
    field.setAttribute("aria-invalid", "true");
    field.setAttribute("aria-errormessage", "form-error");
    const target =
      field instanceof HTMLInputElement || field instanceof HTMLSelectElement
        ? field
        : field.querySelector("input");
    target?.focus();
  }
}

/** Clears the form error and every invalid mark. */
export function clearFormError(): void {
  formError.textContent = "";
  for (const node of Array.from(form.querySelectorAll("[aria-invalid]"))) {
    node.removeAttribute("aria-invalid");
    node.removeAttribute("aria-errormessage");
  }
}

/** Shows only the chosen data source's knobs. */
export function showKnobs(): void {
  const source = byId<HTMLSelectElement>("source").value;
  byId("knobs-bn").hidden = source !== "synthetic-bn";
  byId("knobs-iid").hidden = source !== "synthetic-iid";
  byId("knobs-upload").hidden = source !== "upload";
}
