/** The page's element `#id` (typed); throws naming the id when the page has none. O(1). */
export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`web demo: no element #${id}`);
  return node as T;
};
