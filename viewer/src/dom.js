// Building the page: elements by id, and new elements. Every string from the profile is
// untrusted: it reaches the page only through textContent, element properties and Vega data,
// never as markup.
export const $ = (id) => document.getElementById(id);

export function el(tag, props, children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children || []) {
    node.append(child);
  }
  return node;
}
