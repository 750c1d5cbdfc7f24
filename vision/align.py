"""Aligning a camera patch with one enrolled face by ECC, with fewer steps' overhead.

``cv2.findTransformECC`` maximises the enhanced correlation coefficient (Evangelidis
and Psarakis, 2008) in the forward additive way: each step warps the patch and both
of its gradient images, then builds the Jacobian and the Hessian with a dozen whole-
image passes. At 64x96 pixels that is 2-4 ms a call, a fifth of a photo's time.
Here each step warps the patch once and takes the gradients of the warped patch (the
forward compositional form: the step is composed onto the warp), so the Jacobian is
the same few products at the identity every time. The face's gradients are not used:
a face is sharper than a camera's view of it, and steps linearised on the face settle
short of the best alignment (measured: a few hundredths of correlation, enough to
leave a 7 of coins unknown against the 6). The warp found maps the face's pixels into the patch, as
``findTransformECC``'s does.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

AFFINE, HOMOGRAPHY = cv2.MOTION_AFFINE, cv2.MOTION_HOMOGRAPHY
_FLAGS = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
_BORDER = cv2.BORDER_REPLICATE
_EYE = np.eye(3)


@functools.lru_cache(maxsize=8)
def _grid(w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel x and y of a ``w`` x ``h`` image (one pair for every face of a size)."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x.flags.writeable = y.flags.writeable = False  # shared: read only
    return x, y


class EccTemplate:
    """One face (a float32 grey image) prepared for :func:`align` under ``motion``."""

    def __init__(self, face: np.ndarray, motion: int) -> None:
        if motion not in (AFFINE, HOMOGRAPHY):
            raise ValueError(f"motion must be affine or homography, not {motion}")
        t = np.ascontiguousarray(face, np.float32)
        h, w = t.shape
        self.motion, self.size = motion, (w, h)
        self.x, self.y = _grid(w, h)
        z = t - t.mean()
        self.zero_mean = z.ravel()
        self.norm2 = float(self.zero_mean @ self.zero_mean)
        self.params = 6 if motion == AFFINE else 8


def align(tpl: EccTemplate, image: np.ndarray, warp: np.ndarray, iterations: int,
          eps: float) -> np.ndarray | None:
    """The warp (2x3 affine or 3x3 homography, from ``warp`` on) that best aligns
    ``image`` with the face: ``image`` sampled at warp(x) looks like the face at x.
    Stops after ``iterations`` steps or when the correlation changes by less than
    ``eps``. None when the correlation cannot be improved (a blank or wildly different
    patch)."""
    w, h = tpl.size
    m = _EYE.copy()
    m[: warp.shape[0]] = warp
    img = np.ascontiguousarray(image, np.float32)
    t, x, y, n = tpl.zero_mean, tpl.x, tpl.y, tpl.params
    jac = np.empty((n, h, w), np.float32)
    last = -2.0
    for _ in range(iterations):
        # (The patch's edge repeated where the warp reaches past it: its border is
        # table or the card's margin.)
        if tpl.motion == AFFINE:
            iw = cv2.warpAffine(img, m[:2], (w, h), flags=_FLAGS, borderMode=_BORDER)
        else:
            iw = cv2.warpPerspective(img, m, (w, h), flags=_FLAGS, borderMode=_BORDER)
        gx = cv2.Sobel(iw, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
        gy = cv2.Sobel(iw, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
        v = iw.ravel()
        v = v - float(v.sum()) / v.size
        i2 = float(v @ v)
        corr = float(t @ v)
        if not i2 > 0:  # blank, or not finite
            return None
        rho = corr / np.sqrt(i2 * tpl.norm2)
        if abs(rho - last) < eps:
            break
        last = rho
        # d(warped patch)/d(step) at the identity, the step being the warp matrix's
        # entries row by row.
        np.multiply(gx, x, out=jac[0])
        np.multiply(gx, y, out=jac[1])
        jac[2] = gx
        np.multiply(gy, x, out=jac[3])
        np.multiply(gy, y, out=jac[4])
        jac[5] = gy
        if n == 8:
            r = jac[0] + jac[4]  # gx x + gy y
            np.multiply(r, -x, out=jac[6])
            np.multiply(r, -y, out=jac[7])
        j = jac.reshape(n, -1)
        # Both solves at once (cv2's small solves cost a tenth of numpy.linalg's here).
        rhs = np.empty((n, 2), np.float64)
        rhs[:, 0] = j @ v
        rhs[:, 1] = j @ t
        ok, sol = cv2.solve((j @ j.T).astype(np.float64), rhs, flags=cv2.DECOMP_CHOLESKY)
        if not ok:
            return None
        ip, iph, tph = rhs[:, 0], sol[:, 0], sol[:, 1]
        lam_n = i2 - float(ip @ iph)
        lam_d = corr - float(rhs[:, 1] @ iph)
        if lam_d <= 0:
            return None
        # The step H^-1 J'(lambda t - i): the face scaled to the patch's contrast.
        d = _EYE.copy()
        d.flat[:n] += (lam_n / lam_d) * tph - iph
        m = m @ d
        m /= m[2, 2]
    return m[: warp.shape[0]].astype(np.float32)
