// React Flow makes each edge (an SVG <g>) focusable with tabIndex={0}. React writes that as the
// `tabindex` attribute; Preact writes the prop name as it is, and SVG attributes are case-sensitive,
// so `tabIndex` on a <g> does nothing and no edge could be reached with Tab (nor deleted with the
// Delete key). This hook renames the prop on <g> elements before Preact sees it. Loaded with the
// graph editor only.
import { options, type VNode } from 'preact';

const previous = options.vnode;
options.vnode = (vnode: VNode) => {
  const props = vnode.props as Record<string, unknown>;
  if (vnode.type === 'g' && props['tabIndex'] !== undefined) {
    props['tabindex'] = props['tabIndex'];
    delete props['tabIndex'];
  }
  previous?.(vnode);
};
