"""The event night drawn: on each stack, photos acknowledged, visible to everyone and with their preview
done, over the seconds since the burst began — before a change (dashed) and after it (solid). Plain SVG."""
from html import escape

WIDTH, HEIGHT, MARGIN = 460, 300, 48
COLOURS = {"acknowledged": "#7a7a7a", "visible": "#1f6fd1", "previewed": "#d9822b"}
LABELS = {"acknowledged": "acknowledged", "visible": "visible to everyone", "previewed": "preview done"}


def curve(times: list[float], x, y) -> str:
    """A cumulative count as a line through every 10th photo (a step per photo is 900 × 6 points a panel)."""
    points = [(x(0), y(0))]
    for count, moment in enumerate(times, start=1):
        if count % 10 == 0 or count == len(times):
            points.append((x(moment), y(count)))
    return " ".join(f"{px:.1f},{py:.1f}" for px, py in points)


def panel(stack: str, runs: dict, photos: int, offset: int, dashed: str = "before") -> str:
    last = max((max(timeline, default=0) for run in runs.values() for timeline in run["timeline"].values()), default=1)
    span = max(10, int(last / 10 + 1) * 10)
    x = lambda seconds: offset + MARGIN + seconds / span * (WIDTH - MARGIN - 16)
    y = lambda count: HEIGHT - MARGIN - count / photos * (HEIGHT - MARGIN - 40)
    parts = [f'<text x="{offset + WIDTH / 2}" y="22" text-anchor="middle" font-weight="bold">{escape(stack)}</text>',
             f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(span)}" y2="{y(0)}" stroke="#333"/>',
             f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(0)}" y2="{y(photos)}" stroke="#333"/>']
    step = 30 if span > 120 else 20 if span > 60 else 10
    for second in range(0, span + 1, step):
        parts.append(f'<text x="{x(second):.1f}" y="{y(0) + 16}" text-anchor="middle">{second}</text>')
    parts.append(f'<text x="{x(span / 2):.1f}" y="{y(0) + 34}" text-anchor="middle">seconds since the first photo</text>')
    for count in (0, photos // 2, photos):
        parts.append(f'<text x="{x(0) - 6}" y="{y(count) + 4:.1f}" text-anchor="end">{count}</text>')
    for build, run in runs.items():
        dash = ' stroke-dasharray="5,4"' if build == dashed else ""
        for kind, colour in COLOURS.items():
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} '
                         f'points="{curve(run["timeline"][kind], x, y)}"><title>{escape(build)}: {LABELS[kind]}</title></polyline>')
    return "\n".join(parts)


def picture(results: dict, args) -> str:
    """Each stack's runs in one panel: an earlier build dashed (`--before`), else the night without first looks dashed
    beside the one with them."""
    stacks = list(dict.fromkeys(stack for stack, _ in results))
    builds = {build for _, build in results}
    comparing_first_looks = "before" not in builds and "first looks" in builds
    dashed, key = ("without first looks", "dashed: without first looks, solid: with") if comparing_first_looks else ("before", "dashed: before, solid: after")
    total = WIDTH * len(stacks)
    name = lambda build: build or ("without first looks" if comparing_first_looks else "after")
    body = [panel(stack, {name(build): run for (s, build), run in results.items() if s == stack}, args.photos, index * WIDTH, dashed)
            for index, stack in enumerate(stacks)]
    legend, left = [], 60
    for kind, colour in COLOURS.items():
        legend.append(f'<line x1="{left}" y1="{HEIGHT + 14}" x2="{left + 24}" y2="{HEIGHT + 14}" stroke="{colour}" stroke-width="2"/>'
                      f'<text x="{left + 30}" y="{HEIGHT + 18}">{LABELS[kind]}</text>')
        left += 170
    legend.append(f'<text x="{left}" y="{HEIGHT + 18}">{key}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{HEIGHT + 30}" viewBox="0 0 {total} {HEIGHT + 30}" '
            f'font-family="sans-serif" font-size="12">\n<rect width="100%" height="100%" fill="#fff"/>\n'
            + "\n".join(body) + "\n" + "\n".join(legend) + "\n</svg>\n")
