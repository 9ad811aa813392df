import { ANALYSIS_FIGURES } from "./analysis-figures.js";
import type { CustomFigureDefinition } from "./custom-figure.js";

/**
 * Figures that run their own loop instead of harness experiments (see
 * `CustomFigureDefinition`). `reproduce` looks a figure id up in `FIGURES` first,
 * then here; add a new custom figure to this list.
 */
export const CUSTOM_FIGURES: readonly CustomFigureDefinition[] = [...ANALYSIS_FIGURES];
