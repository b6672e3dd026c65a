"""bertviz's interactive head and model views of minibert's attention, working offline.

bertviz (Vig 2019) draws attention as lines between tokens with d3. As published, its HTML loads
require.js from a CDN and asks it for d3 and jQuery from another, so without network the view is
an empty box, and each output carries a random id. Here the same bertviz JavaScript runs with d3
and jQuery inlined into the output, from npm packages the set-up downloaded (d3 5.7.0, the version
bertviz asks for; jQuery 2.2.4, the last 2.x), and the id is a hash of the content, so a cell's
output is the same on every run.

    python -m minibert.attention_view fetch    # once, done by `make setup`

The views need a live notebook (JupyterLab runs the scripts of outputs it produced or trusts);
a static page such as GitHub's shows nothing. The tested, stored picture of attention is
`minibert.viz.attention_heatmap`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

import torch

from .hub import FetchError, Package, cached, fetch
from .repository import DATA

CACHE = DATA / "cache" / "js"
BERTVIZ_PACKAGE = "bertviz==1.4.1"  # installed with --no-deps (Makefile): we use its JavaScript only


# The AMD module names bertviz's code asks require.js for -> (the npm tarball, the file inside it).
LIBRARIES = {
    "d3": (Package("npm", "d3@5.7.0", "21f53af012d1c00bc9476fa7c3be902fda809495b001e7f7a9481c744d4fe51e"),
           "package/dist/d3.min.js"),  # BSD-3-Clause
    "jquery": (Package("npm", "jquery@2.2.4", "1ce113265b4e2a1c8cfc1da2fbf8836bd44e2911daa2a264b8ec52afef2e19a1"),
               "package/dist/jquery.min.js"),  # MIT
}
SETUP_HINT = "run `make setup` (or `python -m minibert.attention_view fetch`) once, online"


def fetch_libraries(cache: Path = CACHE) -> None:
    for package, _ in LIBRARIES.values():
        fetch(package, cache)


def _read_library(name: str) -> str:
    package, member = LIBRARIES[name]
    if (path := cached(package, CACHE)) is None:
        raise FileNotFoundError(f"{package.spec} is not in {CACHE}: {SETUP_HINT}")
    with tarfile.open(path) as tar:
        return tar.extractfile(member).read().decode("utf-8")


def _bertviz_js(view: str) -> str:
    spec = importlib.util.find_spec("bertviz")  # found, not imported: only its JavaScript is used
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"bertviz is not installed: {SETUP_HINT} "
                                  f"(it runs `pip install --no-deps {BERTVIZ_PACKAGE}`)")
    js = (Path(spec.submodule_search_locations[0]) / f"{view}.js").read_text(encoding="utf-8")
    # Drop the require.config block that points at the CDN; our `requirejs` below hands over the libraries.
    return re.sub(r"require\.config\(\{.*?\}\);", "", js, count=1, flags=re.DOTALL)


def _attention_data(attentions: Sequence[torch.Tensor], tokens: Sequence[str], layers, sentence_b_start,
                    decimals: int, batch_index: int) -> list[dict]:
    T = len(tokens)
    layers = list(range(len(attentions))) if layers is None else list(layers)
    for layer in attentions:
        if layer.ndim != 4 or layer.shape[-1] < T:
            raise ValueError(f"expected one (B, nh, T, T) tensor per layer with T ≥ {T} tokens, got "
                             f"{tuple(layer.shape)}; pass the model's output.attentions and that row's tokens")
    # (L', nh, T, T), rounded: the probabilities travel as JSON text inside the notebook.
    attn = torch.stack([attentions[i][batch_index, :, :T, :T].detach().float().cpu() for i in layers])
    as_list = [[[[round(p, decimals) for p in row] for row in head] for head in layer] for layer in attn.tolist()]
    tokens = [str(t) for t in tokens]
    data = [{"name": "All", "attn": as_list, "left_text": tokens, "right_text": tokens}]
    if sentence_b_start is not None:  # bertviz's filter drop-down: A→A, B→B, A→B, B→A
        b = sentence_b_start
        def part(rows, cols): return [[[r[cols] for r in h[rows]] for h in layer] for layer in as_list]
        for name, rows, cols in (("Sentence A -> Sentence A", slice(0, b), slice(0, b)),
                                 ("Sentence B -> Sentence B", slice(b, T), slice(b, T)),
                                 ("Sentence A -> Sentence B", slice(0, b), slice(b, T)),
                                 ("Sentence B -> Sentence A", slice(b, T), slice(0, b))):
            data.append({"name": name, "attn": part(rows, cols), "left_text": tokens[rows], "right_text": tokens[cols]})
    return data, layers


def view_html(view: str, attentions, tokens: Sequence[str], *, layers: Sequence[int] | None = None,
              sentence_b_start: int | None = None, decimals: int = 3, batch_index: int = 0) -> str:
    """The HTML of bertviz's `view` ("head_view" or "model_view") with every library inlined."""
    if view not in ("head_view", "model_view"):
        raise ValueError(f"view must be 'head_view' or 'model_view', not {view!r}")
    data, layers = _attention_data(attentions, tokens, layers, sentence_b_start, decimals, batch_index)
    params = {"attention": data, "default_filter": "0", "layer": None, "heads": None, "include_layers": layers}
    if view == "model_view":
        heads = int(attentions[0].shape[1])
        params.update(display_mode="light", total_heads=heads, include_heads=list(range(heads)))
    body = json.dumps(params, separators=(",", ":"))
    root = f"bertviz-{view}-{hashlib.sha256(body.encode()).hexdigest()[:16]}"
    params["root_div_id"] = root
    filters = "".join(f'<option value="{i}">{d["name"]}</option>' for i, d in enumerate(data))
    select = f' Attention: <select id="filter">{filters}</select>' if len(data) > 1 else ""
    controls = "Layer: <select id=\"layer\"></select>" if view == "head_view" else ""
    js = _bertviz_js(view).replace("PYTHON_PARAMS", json.dumps(params, separators=(",", ":")))
    return f"""<div id="{root}" style="font-family:'Helvetica Neue', Helvetica, Arial, sans-serif;">
<span style="user-select:none">{controls}{select}</span><div id="vis"></div></div>
<script type="text/javascript">
(function () {{
  // d3 and jQuery inlined, kept out of the page's globals and out of any require.js on the page.
  var define, module, exports, libs = {{}};
  (function () {{ {_read_library("d3")}
  }}).call(libs);
  var saved = {{jQuery: window.jQuery, $: window.$}};
  {_read_library("jquery")}
  libs.jquery = window.jQuery.noConflict(true);
  window.jQuery = saved.jQuery; window.$ = saved.$;
  var requirejs = function (names, body) {{ body.apply(null, names.map(function (n) {{ return libs[n]; }})); }};
  {js}
}})();
</script>"""


def head_view(attentions, tokens: Sequence[str], **kwargs):
    """bertviz's head view (one layer, its heads as colours) as an IPython HTML object; see `view_html`."""
    from IPython.display import HTML

    return HTML(view_html("head_view", attentions, tokens, **kwargs))


def model_view(attentions, tokens: Sequence[str], **kwargs):
    """bertviz's model view (a thumbnail per layer and head) as an IPython HTML object."""
    from IPython.display import HTML

    return HTML(view_html("model_view", attentions, tokens, **kwargs))


if __name__ == "__main__":
    if sys.argv[1:] != ["fetch"]:
        sys.exit("usage: python -m minibert.attention_view fetch")
    try:
        fetch_libraries()
    except FetchError as e:
        sys.exit(f"error: {e}")
    print(f"d3 and jQuery are in {CACHE}")
