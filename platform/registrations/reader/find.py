"""Find a Zulassungsbescheinigung Teil I in a photo or scan and straighten it (OpenCV).

The form's paper is pale green (security print), which sets it apart from tables, hands,
scanner lids and white pages: the largest pale-green region gives the document's quad, which
is warped to a fixed scale (PX_PER_MM) with the long side across. Up or down (0 or 180
degrees) and the exact registration come from the pre-printed grid of boxes, matched against
the form's template; that match is also the structural evidence the classifier uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from PIL import Image

from . import layout

PX_PER_MM = 10
WIDTH_MM, HEIGHT_MM = layout.WIDTH_MM, layout.HEIGHT_MM
WIDTH, HEIGHT = int(WIDTH_MM * PX_PER_MM), int(HEIGHT_MM * PX_PER_MM)
FIND_LONG_SIDE = 720  # the quad is found on a small copy: fast, and blur-tolerant
MATCH_PX_PER_MM = 2  # the grid is matched at this scale


def _template_lines(px_per_mm: float) -> np.ndarray:
    """The real form's ruling (layout.ruled_lines) drawn at `px_per_mm`: what grid_match slides."""
    lines = np.zeros((round(HEIGHT_MM * px_per_mm), round(WIDTH_MM * px_per_mm)), np.uint8)
    horizontal, vertical = layout.ruled_lines()
    for y, x0, x1 in horizontal:
        cv2.line(
            lines,
            (round(x0 * px_per_mm), round(y * px_per_mm)),
            (round(x1 * px_per_mm), round(y * px_per_mm)),
            255,
            1,
        )
    for x, y0, y1 in vertical:
        cv2.line(
            lines,
            (round(x * px_per_mm), round(y0 * px_per_mm)),
            (round(x * px_per_mm), round(y1 * px_per_mm)),
            255,
            1,
        )
    return lines


TEMPLATE = _template_lines(MATCH_PX_PER_MM)


@dataclass(frozen=True)
class Straightened:
    image: np.ndarray  # BGR, HEIGHT x WIDTH, the document upright at PX_PER_MM
    found: bool  # a document quad was found (else the whole picture was used)
    area: float  # share of the picture the document covers
    grid: float  # 0..1: how well the pre-printed grid matches the form's template
    offset_mm: tuple[float, float]  # where the template sits on the straightened page
    scale: tuple[float, float]
    turn: int = 0  # degrees counter-clockwise that bring the picture the document's way up
    quad: Any = None  # n x 2 corners (OpenCV and numpy disagree on the exact array type)  # the document's corners in the picture
    # picture pixels -> page pixels (3x3): where a template box lies in the picture is its page
    # box mapped back (registrations.redaction blacks out the holder's boxes this way)
    to_page: np.ndarray | None = None
    # `image` with the light flattened (flatten_light), made once while the page is searched
    flat: np.ndarray | None = field(default=None, compare=False, repr=False)

    def template_to_picture(self, points_mm: np.ndarray) -> np.ndarray:
        """Template millimetres (n x 2) -> pixel positions in the picture given to straighten."""
        assert self.to_page is not None
        page_px = (np.asarray(self.offset_mm) + points_mm * np.asarray(self.scale)) * PX_PER_MM
        back = np.linalg.inv(self.to_page)
        return cv2.perspectiveTransform(page_px.reshape(-1, 1, 2).astype(np.float64), back).reshape(-1, 2)


def _to_bgr(image: Image.Image) -> np.ndarray:
    return cv2.cvtColor(np.asarray(image.convert("RGB")), cv2.COLOR_RGB2BGR)


# OpenCV hue (0..180): the pale green middle of the security paper and its yellow to orange
# iris towards the edges (the specimen's edges: hue 21-23, saturation 75-94)
PAPER_HUE = (15, 85)
# below this hue the paper's pixels are its yellow to orange iris: the specimen's iris reaches a
# saturation of 92-109 (hue 15-35), its green middle stays under 61 (hue 45-85)
IRIS_HUE = 35


def _paper_mask(small: np.ndarray, max_saturation: int, iris_saturation: int) -> np.ndarray:
    """Pale green pixels: the form's security paper, also in shade (hue and a low saturation
    survive uneven light; tables, hands and white pages fall outside): up to `max_saturation`
    at the green hues, `iris_saturation` at the iris's."""
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    bright = np.percentile(val, 95)
    mask = (
        (hue >= PAPER_HUE[0])
        & (hue <= PAPER_HUE[1])
        & (sat >= 12)
        & (sat <= np.where(hue < IRIS_HUE, iris_saturation, max_saturation))
        & (val >= 0.3 * bright)
    )
    mask = mask.astype(np.uint8) * 255
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    # thin things touching the paper (the rim of a coloured object beside it) come off
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (13, 13)))


def _order(points: np.ndarray) -> np.ndarray:
    """Corners as top-left, top-right, bottom-right, bottom-left, long side first."""
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # clockwise in image coordinates, from top-left-ish
    start = int(np.argmin(ordered.sum(axis=1)))
    ordered = np.roll(ordered, -start, axis=0)
    top = np.linalg.norm(ordered[1] - ordered[0]) + np.linalg.norm(ordered[2] - ordered[3])
    side = np.linalg.norm(ordered[3] - ordered[0]) + np.linalg.norm(ordered[2] - ordered[1])
    if side > top:  # the long side runs down the picture: start from the next corner
        ordered = np.roll(ordered, -1, axis=0)
    return ordered.astype(np.float32)


def find_quad(bgr: np.ndarray) -> tuple[np.ndarray | None, float, tuple[bool, bool]]:
    """The document's four corners in `bgr` coordinates, the share of the picture it covers,
    and whether its length and its height were carried on past the picture's edge (a side of
    the paper cut off by the frame: the corners there are only estimated)."""
    height, width = bgr.shape[:2]
    factor = FIND_LONG_SIDE / max(height, width)
    small = cv2.resize(bgr, (round(width * factor), round(height * factor)), interpolation=cv2.INTER_AREA)
    found = _paper_region(small)
    if found is None:
        return None, 0.0, (False, False)
    contour, area = found
    if area < 0.08:
        return None, area, (False, False)
    hull = cv2.convexHull(contour)
    quad: Any = None  # n x 2 corners (OpenCV and numpy disagree on the exact array type)
    perimeter = cv2.arcLength(hull, True)
    for epsilon in (0.01, 0.02, 0.03):
        approx = _approximate(hull.reshape(-1, 2), epsilon * perimeter, small.shape[:2])
        if len(approx) == 4:
            quad = approx
            break
        if 4 < len(approx) <= 8:
            # a corner cut off (shade, a hand, the picture's edge): the two sides beside it
            # carried on until they meet, not a diagonal across the paper
            quad = _enclosing_quad(approx)
            if quad is not None:
                break
    for epsilon in (0.05, 0.08) if quad is None else ():
        coarse = cv2.approxPolyDP(hull, epsilon * perimeter, True)
        if len(coarse) == 4:
            quad = coarse.reshape(4, 2).astype(np.float64)
            break
    if quad is not None:
        outline = contour.reshape(-1, 2)
        inside = outline[~_on_frame(outline, small.shape[:2]).any(axis=1)]  # the paper's own edge
        quad = _refine(quad.astype(np.float32), inside.astype(np.float32))
    else:  # no four sides: the smallest rectangle around it
        quad = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32)
    quad, extended = _beyond_frame(_order(quad), small.shape[:2])
    return quad / factor, area, extended


def _on_frame(points: np.ndarray, shape: tuple[int, ...], reach: float = 1.5) -> np.ndarray:
    """n x 4: which points lie on the picture's left, right, top and bottom edge."""
    height, width = shape
    x, y = points[:, 0], points[:, 1]
    return np.stack([x <= reach, x >= width - 1 - reach, y <= reach, y >= height - 1 - reach], axis=1)


def _approximate(hull: np.ndarray, epsilon: float, shape: tuple[int, ...]) -> np.ndarray:
    """The hull as a polygon (approxPolyDP), where the picture's edge cuts the paper kept as a
    side of its own: approximated away, the cut and the paper's edge beside it at a small angle
    become one slanted side, and the corner beyond the frame is lost."""
    points = hull.astype(np.float64)
    count = len(points)
    frame = _on_frame(points, shape)
    cuts = [
        i
        for i in range(count)
        if (frame[i] & frame[(i + 1) % count]).any()
        and np.linalg.norm(points[(i + 1) % count] - points[i]) > 2 * epsilon
    ]
    if not cuts:
        return cv2.approxPolyDP(hull.reshape(-1, 1, 2), epsilon, True).reshape(-1, 2).astype(np.float64)
    corners = sorted({i for cut in cuts for i in (cut, (cut + 1) % count)})
    polygon: list[np.ndarray] = []
    for start, end in zip(corners, corners[1:] + corners[:1], strict=True):
        chain = (
            points[start : end + 1] if end > start else np.concatenate([points[start:], points[: end + 1]])
        )
        if len(chain) <= 2:
            polygon.append(chain[0])
            continue
        simple = cv2.approxPolyDP(chain.reshape(-1, 1, 2).astype(np.float32), epsilon, False).reshape(-1, 2)
        polygon.extend(simple[:-1].astype(np.float64))
    # corners in the middle of one cut (the hull's points along the same edge of the picture)
    kept = []
    for i, point in enumerate(polygon):
        before, after = polygon[i - 1], polygon[(i + 1) % len(polygon)]
        edges = _on_frame(np.array([before, point, after]), shape)
        if not (edges[0] & edges[1] & edges[2]).any():
            kept.append(point)
    return np.array(kept, np.float64)


FRAME_PX = 4  # a side this close to the picture's edge (on the small copy) lies along it
ASPECT = WIDTH_MM / HEIGHT_MM


def _beyond_frame(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, tuple[bool, bool]]:
    """A side of the quad that runs along the picture's edge is where the frame cut the paper,
    not the paper's edge: the two sides beside it are carried on to the length the form's
    proportions give them, measured from the side opposite the cut (whole, in view) and
    foreshortened toward the point where the two sides meet in the picture (perspective), so
    that the warp does not stretch the part in view over the whole page. It stays an estimate:
    the grid match then searches a wider range of scales along that direction."""
    height, width = shape
    limits = ((0, 0.0), (0, width - 1.0), (1, 0.0), (1, height - 1.0))

    def along_frame(a: np.ndarray, b: np.ndarray) -> bool:
        return any(abs(a[axis] - at) <= FRAME_PX and abs(b[axis] - at) <= FRAME_PX for axis, at in limits)

    corners = quad.astype(np.float64)
    result = corners.copy()
    extended = [False, False]
    for i in range(4):  # side i runs from corner i to corner i + 1; 0 and 2 are the long sides
        near = (i, (i + 1) % 4)
        far = ((i + 3) % 4, (i + 2) % 4)  # the opposite side's corners, each on a side beside
        if not along_frame(*corners[list(near)]) or along_frame(*corners[list(far)]):
            continue  # not cut, or cut on both sides: nothing to measure the length by
        # the sides beside the cut at the form's proportions, at the scale of the far side
        flat_length = np.linalg.norm(corners[far[0]] - corners[far[1]]) * (ASPECT if i % 2 else 1 / ASPECT)
        lines = [np.cross([*corners[f], 1.0], [*corners[n], 1.0]) for n, f in zip(near, far, strict=True)]
        meet = np.cross(lines[0], lines[1])  # where the sides beside the cut meet (vanishing point)
        lengths, wanted = [], []
        for n, f in zip(near, far, strict=True):
            direction = corners[n] - corners[f]
            lengths.append(float(np.linalg.norm(direction)))
            estimate = flat_length
            if abs(meet[2]) > 1e-9:
                # a line seen in perspective: t(s) = a s / (1 + a s / t_meet), t_meet where the sides meet
                towards = float((meet[:2] / meet[2] - corners[f]) @ direction) / max(lengths[-1], 1e-9)
                if abs(towards) > 1e-6:
                    denominator = 1 + flat_length / towards
                    estimate = flat_length / denominator if denominator > 0.2 else flat_length
            wanted.append(estimate)
        if min(lengths) < 1:
            continue
        for n, f, length, want in zip(near, far, lengths, wanted, strict=True):
            if want > length:  # (a side in view further than its estimate stays as it is)
                result[n] = corners[f] + (corners[n] - corners[f]) * (want / length)
                extended[1 if i % 2 == 0 else 0] = True
    return result.astype(np.float32), (extended[0], extended[1])


SOLID = 0.9  # the paper's region fills its hull this well; a textured table around it does not
# The paleness steps of _paper_region: the most saturation of the green hues, of the iris's
# hues, and whether the step counts only where it gives one solid piece. A green cloth
# (saturation 83-93) joins the paper at the first step; at 60 for every hue the paper's own
# iris came off with it, and a quad that cut the holder panel stored names as "gen" (Jürgen):
# the second step leaves the iris as it is. It counts only where solid: as the least ragged of
# pieces none solid, it took a quad that lost a turned phone photo's form.
PALENESS = ((95, 95, False), (60, 95, True), (60, 60, False), (40, 40, False))


def _paper_region(small: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The largest pale-green region and the share of the picture it covers, at the first
    paleness at which it is one solid piece: a green table or cloth joins the paper at the
    widest paleness (covering nearly all the picture, or as a ragged blob around it)."""
    best: tuple[float, np.ndarray, float] | None = None
    for max_saturation, iris_saturation, solid_only in PALENESS:
        mask = _paper_mask(small, max_saturation, iris_saturation)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if not contours:
            break
        contour = max(contours, key=cv2.contourArea)
        area = cv2.contourArea(contour)
        share = area / (mask.shape[0] * mask.shape[1])
        solidity = area / max(1.0, cv2.contourArea(cv2.convexHull(contour)))
        if share < 0.92 and solidity >= SOLID:
            return contour, share
        if share < 0.92 and not solid_only and (best is None or solidity > best[0]):
            best = (solidity, contour, share)
    if best is None:
        return None
    return best[1], best[2]


def _enclosing_quad(polygon: np.ndarray) -> np.ndarray | None:
    """The convex polygon's enclosing quadrilateral that adds the least area: an edge at a
    time is dropped, its neighbours extended to meet, where that adds the least."""
    points = [p for p in polygon]
    while len(points) > 4:
        best: tuple[float, int, np.ndarray] | None = None
        n = len(points)
        for i in range(n):
            before, a, b, after = points[i - 1], points[i], points[(i + 1) % n], points[(i + 2) % n]
            d1, d2 = a - before, b - after  # each side carried on past the edge's end
            matrix = np.array([d1, -d2]).T
            if abs(np.linalg.det(matrix)) < 1e-9:
                continue
            t = np.linalg.solve(matrix, b - a)
            if t[0] <= 0 or t[1] <= 0:  # the sides part: they never meet beyond the edge
                continue
            meet = a + t[0] * d1
            (ux, uy), (vx, vy) = b - a, meet - a
            added = 0.5 * abs(float(ux * vy - uy * vx))  # the triangle the corner adds
            if best is None or added < best[0]:
                best = (added, i, meet)
        if best is None:
            return None
        _, i, meet = best
        # the edge from point i to i + 1 gives way to where its neighbours meet
        points = [meet, *points[1:-1]] if (i + 1) % n == 0 else [*points[:i], meet, *points[i + 2 :]]
    return np.array(points, np.float64)


def _refine(corners: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Sharper corners: a line fitted to the outline along each side, intersected with the
    next (the approximated polygon rounds corners off and cuts them where a hand is). A side
    without outline along it (where the picture's edge cut the paper) keeps its own line."""
    lines = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        direction = b - a
        length = float(np.linalg.norm(direction))
        if length < 1:
            return corners
        unit = direction / length
        normal = np.array([-unit[1], unit[0]])
        along = (points - a) @ unit
        across = np.abs((points - a) @ normal)
        near = points[(along > 0.15 * length) & (along < 0.85 * length) & (across < max(3.0, 0.03 * length))]
        if len(near) < 5:
            lines.append((a.astype(np.float64), unit))
            continue
        vx, vy, x0, y0 = cv2.fitLine(near, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    refined = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        matrix = np.array([d1, -d2]).T
        if abs(np.linalg.det(matrix)) < 1e-6:
            return corners
        t = np.linalg.solve(matrix, p2 - p1)
        refined.append(p1 + t[0] * d1)
    result: Any = np.array(refined, np.float32)
    if np.abs(result - corners).max() > 0.1 * max(np.ptp(corners[:, 0]), np.ptp(corners[:, 1])):
        return corners
    return result


def _warp(bgr: np.ndarray, quad: np.ndarray) -> np.ndarray:
    target = np.array([[0, 0], [WIDTH - 1, 0], [WIDTH - 1, HEIGHT - 1], [0, HEIGHT - 1]], np.float32)
    matrix = cv2.getPerspectiveTransform(quad, target)
    return cv2.warpPerspective(
        bgr, matrix, (WIDTH, HEIGHT), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def flatten_light(bgr: np.ndarray) -> np.ndarray:
    """Each channel divided by its local paper level: shadows and light gradients go, the
    ink keeps its colour relative to the paper (1.0 = paper)."""
    small = cv2.resize(bgr, (bgr.shape[1] // 8, bgr.shape[0] // 8), interpolation=cv2.INTER_AREA)
    # the paper level: a closing removes ink, a blur smooths the guilloche
    paper = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9)))
    paper = cv2.GaussianBlur(paper, (0, 0), 4)
    # In place: two page-sized float arrays at most (34 MB each); the expression form held four.
    paper = cv2.resize(paper, (bgr.shape[1], bgr.shape[0]), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    flat = bgr.astype(np.float32)
    np.divide(flat, np.maximum(paper, 1.0, out=paper), out=flat)
    return np.clip(flat, 0, 1.2, out=flat)


def print_lines(flat: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Long straight strokes of the pre-print (the box borders), at `px_per_mm`. The red
    channel shows the green print darkest against the pale green paper."""
    size = (round(WIDTH_MM * px_per_mm), round(HEIGHT_MM * px_per_mm))
    half = cv2.resize(flat[..., 2], (flat.shape[1] // 2, flat.shape[0] // 2), interpolation=cv2.INTER_AREA)
    darkness = cv2.GaussianBlur(1.0 - half, (0, 0), 0.8)
    # ridges: darker than the paper on both sides at 0.6 mm; text strokes are thicker than the
    # box borders and drop out, so do the printer's values
    step = 3
    up, down = np.roll(darkness, step, axis=0), np.roll(darkness, -step, axis=0)
    left, right = np.roll(darkness, step, axis=1), np.roll(darkness, -step, axis=1)
    ridge_h = darkness - np.maximum(up, down)
    ridge_v = darkness - np.maximum(left, right)
    length = round(2.5 * PX_PER_MM / 2)
    horizontal: Any = ((ridge_h > 0.04) * 255).astype(np.uint8)
    horizontal = cv2.morphologyEx(
        horizontal, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 1))
    )
    horizontal = cv2.morphologyEx(
        horizontal, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1))
    )
    vertical: Any = ((ridge_v > 0.04) * 255).astype(np.uint8)
    vertical = cv2.morphologyEx(vertical, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (1, 5)))
    vertical = cv2.morphologyEx(
        vertical, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, length))
    )
    lines = cv2.bitwise_or(horizontal, vertical)
    return cv2.resize(lines, size, interpolation=cv2.INTER_AREA)


SCALES = (0.94, 0.97, 1.0, 1.03)
# along a side carried on past the picture's edge (its length an estimate, _beyond_frame)
WIDE_SCALES = (0.85, 0.88, 0.91, 0.94, 0.97, 1.0, 1.03, 1.06, 1.09, 1.12, 1.15)


def grid_match(
    lines: np.ndarray,
    scales: tuple[tuple[float, ...], tuple[float, ...]] = (SCALES, SCALES),
    reach_mm: float | None = None,
) -> tuple[float, tuple[float, float], tuple[float, float]]:
    """How well the detected lines fit the template (0..1), its offset in mm and its scale.

    Tolerant of a quad that was a little off (a cropped edge, a curled corner): the template
    is tried at a few scales (across and down) and slid over the page."""
    pad = round((8 + max(0.0, max(max(scales[0]), max(scales[1])) - 1) * WIDTH_MM) * MATCH_PX_PER_MM)
    padded = cv2.copyMakeBorder(lines, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    blurred = cv2.GaussianBlur(padded.astype(np.float32), (0, 0), 1.0)
    best = (-1.0, (0.0, 0.0), (1.0, 1.0))
    for sx in scales[0]:
        for sy in scales[1]:
            template = cv2.resize(TEMPLATE, None, fx=sx, fy=sy, interpolation=cv2.INTER_NEAREST).astype(
                np.float32
            )
            if template.shape[0] > blurred.shape[0] or template.shape[1] > blurred.shape[1]:
                continue
            result = cv2.matchTemplate(blurred, template, cv2.TM_CCOEFF_NORMED)
            if reach_mm is not None:
                # the page's edges are the paper's: the form lies where its proportions put it,
                # give or take reach_mm. The rows repeat every 4.09 mm, so a free slide could
                # put the template a row or two off and still match nearly as well.
                expect_x = pad + (1 - sx) * WIDTH_MM / 2 * MATCH_PX_PER_MM
                expect_y = pad + (1 - sy) * HEIGHT_MM / 2 * MATCH_PX_PER_MM
                reach = reach_mm * MATCH_PX_PER_MM
                ys, xs = np.ogrid[: result.shape[0], : result.shape[1]]
                result = np.where(
                    (np.abs(xs - expect_x) <= reach) & (np.abs(ys - expect_y) <= reach), result, -1.0
                )
            _, score, _, location = cv2.minMaxLoc(result)
            if score > best[0]:
                offset = ((location[0] - pad) / MATCH_PX_PER_MM, (location[1] - pad) / MATCH_PX_PER_MM)
                best = (float(score), offset, (sx, sy))
    return best


# Patches of the template (x, y, w, h in mm) that pin the page down: corners and middle of
# the grid, and the holder panel. Each is looked for near where the coarse match puts it.
ANCHORS = [
    (62, 5, 40, 16), (95, 5, 40, 16), (136, 5, 40, 16), (170, 5, 38, 16),
    (62, 58, 40, 18), (136, 38, 50, 16), (136, 55, 50, 22), (1, 45, 60, 12),
]  # fmt: skip
SEARCH_MM = 10
QUAD_REACH_MM = 3.0  # less than a row's pitch (4.09 mm): the rows cannot be matched one off
ANCHOR_REACH_MM = 2.0
FREE_TRIED_BELOW = 0.45  # a held match this good is the form: no free match tried
FREE_BETTER = 0.08  # a free match this much better than the held one: the quad was not the paper
# a quad whose long side is less than this many times its short one is not the whole form (its
# proportions are 2): on the bench, every quad under 1.65 was part of the paper or its shade,
# and such pages were read wrong or refused; quads of whole forms measured 1.74-2.29 (the
# perspective of a phone photo)
QUAD_SHORT = 1.65


def register(
    lines: np.ndarray, offset: tuple[float, float], scale: tuple[float, float], search_mm: float = SEARCH_MM
) -> tuple[np.ndarray | None, float]:
    """A homography from template millimetres to page millimetres, from the anchors found
    near their coarse places, and the mean match of those anchors (0..1)."""
    k = MATCH_PX_PER_MM
    blurred = cv2.GaussianBlur(lines.astype(np.float32), (0, 0), 0.8)
    source, target, scores = [], [], []
    for x, y, w, h in ANCHORS:
        patch: Any = TEMPLATE[round(y * k) : round((y + h) * k), round(x * k) : round((x + w) * k)].astype(
            np.float32
        )
        patch = cv2.resize(patch, None, fx=scale[0], fy=scale[1], interpolation=cv2.INTER_NEAREST)
        expect_x, expect_y = offset[0] + x * scale[0], offset[1] + y * scale[1]
        x0, y0 = round((expect_x - search_mm) * k), round((expect_y - search_mm) * k)
        x1, y1 = (
            x0 + patch.shape[1] + round(2 * search_mm * k),
            y0 + patch.shape[0] + round(2 * search_mm * k),
        )
        cx0, cy0 = max(0, x0), max(0, y0)
        window = blurred[cy0 : min(y1, blurred.shape[0]), cx0 : min(x1, blurred.shape[1])]
        if window.shape[0] < patch.shape[0] or window.shape[1] < patch.shape[1] or patch.max() == 0:
            continue
        result = cv2.matchTemplate(window, patch, cv2.TM_CCOEFF_NORMED)
        _, score, _, location = cv2.minMaxLoc(result)
        scores.append(max(0.0, float(score)))
        if score < 0.25:
            continue
        found_x, found_y = (cx0 + location[0]) / k, (cy0 + location[1]) / k
        for dx, dy in ((0, 0), (w, 0), (w, h), (0, h)):
            source.append((x + dx, y + dy))
            target.append((found_x + dx * scale[0], found_y + dy * scale[1]))
    mean = float(np.mean(scores)) if scores else 0.0
    if len(source) < 16:  # fewer than four anchors: keep the coarse placement
        return None, mean
    homography, _ = cv2.findHomography(
        np.asarray(source, np.float32), np.asarray(target, np.float32), cv2.RANSAC, 1.5
    )
    return homography, mean


# print_lines at MATCH_PX_PER_MM: its pixel j is the mean over page pixels (j + 0.5) * 10 / k
# - 0.5 (two INTER_AREA halvings' pixel centres), i.e. j / k mm and this much
LINES_SHIFT_MM = 0.5 / MATCH_PX_PER_MM - 0.5 / PX_PER_MM
REFINE_FROM = 0.2  # a grid match below this is no form: not worth aligning
# (blur in px at MATCH_PX_PER_MM, reach in mm): wide first (a larger reach), then sharp
ECC_STEPS = ((2.0, 4.0), (1.0, 2.0))


def refine(lines: np.ndarray, homography: np.ndarray) -> tuple[np.ndarray, float]:
    """The template-to-page homography (mm) moved until the template's lines lie on the
    page's (OpenCV's ECC alignment, coarse to fine): it takes up what the anchors leave, a
    perspective the quad got wrong where the frame cut the paper, a corner in shade. Returns
    the homography and the final correlation (0..1); unchanged where ECC does not converge."""
    k = MATCH_PX_PER_MM
    to_px = np.diag([k, k, 1.0])
    warp = (to_px @ homography @ np.linalg.inv(to_px)).astype(np.float32)
    warp /= warp[2, 2]
    template, page = TEMPLATE.astype(np.float32), lines.astype(np.float32)
    correlation = 0.0
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4)
    everywhere = np.full(page.shape, 255, np.uint8)
    for sigma, reach_mm in ECC_STEPS:
        # only the page's lines near the template's (where the current placement puts them):
        # a seal, a signature, the paper's edge or a box the template does not know would
        # pull the fit their way
        reach = 2 * round(reach_mm * k) + 1
        near = cv2.dilate(TEMPLATE, cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach)))
        near = cv2.warpPerspective(
            near, warp.astype(np.float64), (page.shape[1], page.shape[0]), flags=cv2.INTER_NEAREST
        )
        try:
            correlation, moved = cv2.findTransformECC(
                cv2.GaussianBlur(template, (0, 0), sigma),
                cv2.GaussianBlur(page * (near > 0), (0, 0), sigma),
                warp.copy(),
                cv2.MOTION_HOMOGRAPHY,
                criteria,
                everywhere,
                1,
            )
        except cv2.error:
            break
        warp = moved
    result = np.linalg.inv(to_px) @ warp.astype(np.float64) @ to_px
    return result / result[2, 2], float(correlation)


def _placed(
    lines: np.ndarray, score: float, offset: tuple[float, float], scale: tuple[float, float], search_mm: float
) -> tuple[np.ndarray, float, float | None]:
    """The template-to-page homography from the anchors found within search_mm of the coarse
    placement, refined (refine); the anchors' match and the refined fit (None: not refined)."""
    homography, anchors = register(lines, offset, scale, search_mm)
    if homography is None:  # too few anchors: the coarse placement
        homography = np.array([[scale[0], 0, offset[0]], [0, scale[1], offset[1]], [0, 0, 1.0]])
    if max(score, anchors) < REFINE_FROM:
        return homography, anchors, None
    homography, fit = refine(lines, homography)
    return homography, anchors, fit


def proportions(quad: Any) -> float:
    """A quad's first and third sides (its long ones, as _order puts them) over its second and
    fourth, each pair's mean; 0 for a quad without height."""
    corners = np.asarray(quad, np.float64)
    sides = [float(np.linalg.norm(corners[(i + 1) % 4] - corners[i])) for i in range(4)]
    long, short = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return long / short if short > 0 else 0.0


def _widened(quad: np.ndarray) -> list[np.ndarray]:
    """Where the quad found is too short for the form (QUAD_SHORT: its long side less than
    that many times its short one; the form's is 2), the paper it may be a part of: carried on
    to the form's proportions at its one end, at the other, or at both by half. On a white
    table the holder panel's pale paper was taken for the table, and the quad held only the
    two ruled panels."""
    long_over_short = proportions(quad)
    if not long_over_short or long_over_short >= QUAD_SHORT:
        return []
    missing = WIDTH_MM / HEIGHT_MM / long_over_short - 1  # of the long side found
    top, bottom = (quad[1] - quad[0]) * missing, (quad[2] - quad[3]) * missing
    return [
        np.array([quad[0] - top, quad[1], quad[2], quad[3] - bottom], np.float32),
        np.array([quad[0], quad[1] + top, quad[2] + bottom, quad[3]], np.float32),
        np.array(
            [quad[0] - top / 2, quad[1] + top / 2, quad[2] + bottom / 2, quad[3] - bottom / 2], np.float32
        ),
    ]


def straighten(image: Image.Image) -> Straightened:
    """The document upright at a fixed scale, with its grid evidence. Without a quad the whole
    picture is tried in all four turns (a full-page scan, a grey photocopy)."""
    bgr = _to_bgr(image)
    quad, area, extended = find_quad(bgr)
    scales = (WIDE_SCALES if extended[0] else SCALES, WIDE_SCALES if extended[1] else SCALES)
    widened = _widened(quad) if quad is not None and not any(extended) else []
    # a whole paper found: the form is where the paper is, a row's pitch off at most
    reach = QUAD_REACH_MM if quad is not None and not any(extended) and not widened else None
    # each way up (with its light flattened), the matrix taking picture pixels to its pixels
    # and the quad it was cut by; its half turn is tried on its grid lines turned (no second
    # page-sized copy)
    candidates: list[tuple[np.ndarray, np.ndarray, int, np.ndarray, Any]] = []
    half_turn = np.array([[-1.0, 0, WIDTH - 1], [0, -1.0, HEIGHT - 1], [0, 0, 1.0]])
    if quad is not None:
        top = quad[1] - quad[0]
        # the top edge's direction, as a turn of the picture in whole quarters (PIL's sense)
        angle = round(float(np.degrees(np.arctan2(top[1], top[0]))) / 90) * 90 % 360
        target = np.array([[0, 0], [WIDTH - 1, 0], [WIDTH - 1, HEIGHT - 1], [0, HEIGHT - 1]], np.float32)
        for corners in [quad, *widened]:
            upright = _warp(bgr, corners)
            warp = cv2.getPerspectiveTransform(corners.astype(np.float32), target).astype(np.float64)
            candidates.append((upright, flatten_light(upright), angle, warp, corners))
    else:
        height, width = bgr.shape[:2]
        # cv2.ROTATE_90_CLOCKWISE: (x, y) -> (height - 1 - y, x)
        clockwise = np.array([[0.0, -1.0, height - 1], [1.0, 0, 0], [0, 0, 1.0]])
        for turned, angle, move in (
            (bgr, 0, np.eye(3)),
            (cv2.rotate(bgr, cv2.ROTATE_90_CLOCKWISE), 90, clockwise),
        ):
            if turned.shape[1] >= turned.shape[0]:
                whole = cv2.resize(turned, (WIDTH, HEIGHT), interpolation=cv2.INTER_AREA)
                sx, sy = WIDTH / turned.shape[1], HEIGHT / turned.shape[0]
                resize = np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]])
                candidates.append((whole, flatten_light(whole), angle, resize @ move, None))
    scored = []
    for candidate, flat, angle, to_page, corners in candidates:
        lines = print_lines(flat, MATCH_PX_PER_MM)
        turned_lines = cv2.rotate(lines, cv2.ROTATE_180)
        scored.append((grid_match(lines, scales, reach), lines, candidate, flat, angle, to_page, corners))
        scored.append(
            (
                grid_match(turned_lines, scales, reach),
                turned_lines,
                candidate,
                flat,
                (angle + 180) % 360,
                half_turn @ to_page,
                corners,
            )
        )
    (score, offset, scale), lines, page, flat, turn, to_page, chosen = max(
        scored, key=lambda item: item[0][0]
    )
    quad = chosen if chosen is not None else quad
    del scored, candidates
    if reach is not None and score < FREE_TRIED_BELOW:
        # the quad may not be the paper (a corner in shade, a table of the paper's colour):
        # where the form fits clearly better elsewhere, it is there
        free = grid_match(lines, scales)
        if free[0] > score + FREE_BETTER:
            (score, offset, scale), reach = free, None
    homography, anchors, fit = _placed(
        lines, score, offset, scale, SEARCH_MM if reach is None else ANCHOR_REACH_MM
    )
    if reach is None and fit is not None:
        # the wide search may take the anchors a row or two off the coarse placement (the
        # rows repeat every 4.09 mm, the empty ruled lines below are all alike): a scan whose
        # paper ran past the picture's edge was read two rows low. The near search is tried
        # too, and the placement whose lines fit the template better is kept
        near = _placed(lines, score, offset, scale, ANCHOR_REACH_MM)
        if near[2] is not None and near[2] > fit:
            homography, anchors = near[0], near[1]
    # the lines' pixel j lies at j / MATCH_PX_PER_MM + LINES_SHIFT_MM on the page
    homography = np.array([[1.0, 0, LINES_SHIFT_MM], [0, 1.0, LINES_SHIFT_MM], [0, 0, 1.0]]) @ homography
    to_px = np.diag([PX_PER_MM, PX_PER_MM, 1.0])
    # page pixels -> template pixels: the template's boxes then sit where the form has them;
    # the page cut from the picture again in one warp (a second resampling blurs the values)
    to_page = to_px @ np.linalg.inv(homography) @ np.linalg.inv(to_px) @ to_page
    del page, flat
    page = cv2.warpPerspective(
        bgr, to_page, (WIDTH, HEIGHT), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    flat = flatten_light(page)
    offset, scale = (0.0, 0.0), (1.0, 1.0)
    return Straightened(
        page, quad is not None, area, max(score, anchors), offset, scale, turn, quad, to_page, flat
    )
