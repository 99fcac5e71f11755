"""Special functions on any array namespace (numpy has none of them), in float64 unless said
otherwise: erf (fdlibm's s_erf.c), digamma (Eigen's / Cephes psi), lgamma (Lanczos), ndtri
(Cephes, erfinv's), the Hurwitz zeta of polygamma (Cephes zeta) and the modified Bessel
functions I0, I1 (Cephes Chebyshev series, the tables Paddle's bessel kernels use).

erf: rational approximations of Sun's fdlibm (the C library's erf), accurate to about 1 ulp of
a double, so float32 results equal std::erf(float) to the last bit or one off.
"""

from __future__ import annotations

import math

__all__ = ["ZETA_A", "bessel", "digamma64", "erf64", "lgamma64", "ndtri64", "zeta64"]

_ERX = 8.45062911510467529297e-01
_EFX = 1.28379167095512586316e-01
_PP = (1.28379167095512558561e-01, -3.25042107247001499370e-01, -2.84817495755985104766e-02,
       -5.77027029648944159157e-03, -2.37630166566501626084e-05)
_QQ = (1.0, 3.97917223959155352819e-01, 6.50222499887672944485e-02, 5.08130628187576562776e-03,
       1.32494738004321644526e-04, -3.96022827877536812320e-06)
_PA = (-2.36211856075265944077e-03, 4.14856118683748331666e-01, -3.72207876035701323847e-01,
       3.18346619901161753674e-01, -1.10894694282396677476e-01, 3.54783043256182359371e-02,
       -2.16637559486879084300e-03)
_QA = (1.0, 1.06420880400844228286e-01, 5.40397917702171048937e-01, 7.18286544141962662868e-02,
       1.26171219808761642112e-01, 1.36370839120290507362e-02, 1.19844998467991074170e-02)
_RA = (-9.86494403484714822705e-03, -6.93858572707181764372e-01, -1.05586262253232909814e+01,
       -6.23753324503260060396e+01, -1.62396669462573470355e+02, -1.84605092906711035994e+02,
       -8.12874355063065934246e+01, -9.81432934416914548592e+00)
_SA = (1.0, 1.96512716674392571292e+01, 1.37657754143519042600e+02, 4.34565877475229228821e+02,
       6.45387271733267880336e+02, 4.29008140027567833386e+02, 1.08635005541779435134e+02,
       6.57024977031928170135e+00, -6.04244152148580987438e-02)
_RB = (-9.86494292470009928597e-03, -7.99283237680523006574e-01, -1.77579549177547519889e+01,
       -1.60636384855821916062e+02, -6.37566443368389627722e+02, -1.02509513161107724954e+03,
       -4.83519191608651397019e+02)
_SB = (1.0, 3.03380607434824582924e+01, 3.25792512996573918826e+02, 1.53672958608443695994e+03,
       3.19985821950859553908e+03, 2.55305040643316442583e+03, 4.74528541206955367215e+02,
       -2.24409524465858183362e+01)


def _poly(z, coeffs):
    out = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        out = out * z + c
    return out


def erf64(xp, x):
    """erf of a float64 array (NaN -> NaN, +-inf -> +-1, -0.0 -> -0.0).

    The polynomial of |x| < 0.84375 runs on every element; the other branches only on the
    elements that need them (half the time of evaluating every branch everywhere on large
    arrays; the same bits)."""
    z = x * x
    out = x + x * (_poly(z, _PP) / _poly(z, _QQ))  # |x| < 0.84375
    ax = xp.abs(x)
    big = ax >= 0.84375
    if bool(xp.any(big)):
        xb, ab = x[big], ax[big]
        sign = xp.where(xb < 0, -1.0, 1.0)
        s = ab - 1.0
        mid = sign * (_ERX + _poly(s, _PA) / _poly(s, _QA))  # 0.84375 <= |x| < 1.25
        safe = xp.minimum(xp.maximum(ab, 1.25), 6.0)  # keeps the tail branch finite
        inv = 1.0 / (safe * safe)
        ratio = xp.where(safe < 1 / 0.35, _poly(inv, _RA) / _poly(inv, _SA),
                         _poly(inv, _RB) / _poly(inv, _SB))
        tail = sign * (1.0 - xp.exp(-safe * safe - 0.5625 + ratio) / safe)  # 1.25 <= |x| < 6
        values = xp.where(ab < 1.25, mid, tail)
        out[big] = xp.where(ab >= 6.0, sign, values)
    return xp.where(xp.isnan(x), x, out)


# Cephes psi: asymptotic series of digamma for s >= 10, in z = 1 / s^2 (highest degree first)
_PSI_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
          -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
          8.33333333333333333333E-2)
# Lanczos approximation, g = 7, 9 terms (relative error about 1e-15)
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)
# Cephes zeta: Euler-Maclaurin coefficients (2k)! / B_2k
ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def _polevl(z, coeffs):
    out = coeffs[0]
    for c in coeffs[1:]:
        out = out * z + c
    return out


def digamma64(xp, x):
    """Eigen's digamma_impl: NaN at the poles (0, negative integers, -inf), reflection below 0,
    the recurrence psi(x + 1) = psi(x) + 1 / x up to 10, then the asymptotic series."""
    neg = x <= 0
    p = xp.floor(x)
    pole = neg & (p == x)
    nz = x - p
    up = nz > 0.5
    nz = xp.where(up, x - (p + 1.0), nz)
    refl = xp.where(nz != 0.5, math.pi / xp.tan(math.pi * xp.where(pole, 0.25, nz)), 0.0)
    s = xp.where(neg, 1.0 - x, x)
    w = xp.zeros_like(s)
    for _ in range(12):  # s >= 0 here (or NaN): 11 steps reach 10 from any s
        small = s < 10.0
        w = w + xp.where(small, 1.0 / xp.where(small, s, 1.0), 0.0)
        s = xp.where(small, s + 1.0, s)
    z = 1.0 / (s * s)
    y = xp.log(s) - 0.5 / s - z * _polevl(z, _PSI_A) - w
    y = xp.where(neg, y - refl, y)
    return xp.where(pole, math.nan, y)


def lgamma64(xp, x):
    """log|Gamma(x)|: +inf at 0, the negative integers and +-inf; reflection below 0.5."""
    refl = x < 0.5
    z = xp.where(refl, 1.0 - x, x) - 1.0
    acc = _LANCZOS[0]
    for i, c in enumerate(_LANCZOS[1:], start=1):
        acc = acc + c / (z + i)
    t = z + _LANCZOS_G + 0.5
    direct = 0.5 * math.log(2 * math.pi) + (z + 0.5) * xp.log(t) - t + xp.log(acc)
    sin_term = xp.abs(xp.sin(math.pi * (x - xp.floor(x))))
    reflected = math.log(math.pi) - xp.log(sin_term) - direct
    out = xp.where(refl, reflected, direct)
    pole = (x <= 0) & (x == xp.floor(x))
    return xp.where(pole | xp.isinf(x), math.inf, out)


# Cephes ndtri: P0/Q0 for |p - 0.5| <= 3/8, P1/Q1 and P2/Q2 in 1 / sqrt(-2 log p) for the tails
# (z below / above 8); the Q polynomials have a leading 1
_NDTRI_P0 = (-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0)
_NDTRI_P1 = (4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4)
_NDTRI_P2 = (3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9)
_EXP_M2 = 0.13533528323661269189


def ndtri64(xp, p):
    """The standard normal quantile (Cephes / Eigen ndtri): -inf at p <= 0, +inf at p >= 1."""
    flip = p > 1.0 - _EXP_M2
    y = xp.where(flip, 1.0 - p, p)
    safe = xp.where((y > 0) & (y <= _EXP_M2), y, 0.5)
    w = y - 0.5
    w2 = w * w
    central = (w + w * (w2 * _polevl(w2, _NDTRI_P0) / _polevl(w2, _NDTRI_Q0))) * math.sqrt(
        2 * math.pi)
    x = xp.sqrt(-2.0 * xp.log(safe))
    z = 1.0 / x
    x1 = xp.where(x < 8.0, z * _polevl(z, _NDTRI_P1) / _polevl(z, _NDTRI_Q1),
                  z * _polevl(z, _NDTRI_P2) / _polevl(z, _NDTRI_Q2))
    tail = (x - xp.log(x) / x) - x1
    tail = xp.where(flip, tail, -tail)
    out = xp.where((y > _EXP_M2) | xp.isnan(p), central, tail)  # NaN stays NaN
    return xp.where(p <= 0, -math.inf, xp.where(p >= 1, math.inf, out))


def zeta64(xp, s: float, q):
    """Hurwitz zeta(s, q) for s >= 1 (Cephes zeta): +inf for s = 1 and at q = 0, -1, ...; the
    asymptotic form above 1e8 (q = inf gives NaN as Paddle does), else Euler-Maclaurin
    summation."""
    if s == 1.0:
        return xp.full(q.shape, math.inf)
    pole = (q <= 0) & (q == xp.floor(q))
    qq = xp.where(pole | xp.isnan(q), 1.0, q)
    total = xp.power(qq, -s)
    a = qq
    b = xp.zeros_like(qq)
    i = 0
    active = xp.ones(qq.shape, dtype=bool)
    while bool(xp.any(active)):
        active = (a <= 9.0) | (i < 9)
        a = xp.where(active, a + 1.0, a)
        b = xp.where(active, xp.power(a, -s), b)
        total = total + xp.where(active, b, 0.0)
        i += 1
    w = a
    total = total + b * w / (s - 1.0) - 0.5 * b
    fact, k = 1.0, 0.0
    for coeff in ZETA_A:
        fact = fact * (s + k)
        b = b / w
        total = total + fact * b / coeff
        k += 1.0
        fact = fact * (s + k)
        b = b / w
        k += 1.0
    asym = (1.0 / (s - 1.0) + 1.0 / (2.0 * qq)) * xp.power(qq, 1.0 - s)
    out = xp.where((qq > 1e8) & ~xp.isinf(qq), asym, total)
    out = xp.where(xp.isnan(q), math.nan, out)
    return xp.where(pole, math.inf, out)


# Cephes Chebyshev tables of exp(-x) I0(x) and exp(-x) I1(x) / x on [0, 8] (A) and of
# exp(-x) sqrt(x) I0(x), exp(-x) sqrt(x) I1(x) on [8, inf) in 32 / x - 2 (B)
_I0_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
         1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
         9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
         1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
         1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
         1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
         3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
         -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
         -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
         2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1)
_I1_A = (2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
         -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
         3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
         -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
         9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
         -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
         4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
         -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
         2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
         -1.76416518357834055153E-1, 2.52587186443633654823E-1)
_I1_B = (7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
         -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
         -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
         4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
         -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
         3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
         -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
         -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
         7.78576235018280120474E-1)


def _chbevl(y, coeffs, t):
    """Clenshaw's sum of a Chebyshev series, in x's floating type ``t``."""
    b0, b1, b2 = t(coeffs[0]), t(0), t(0)
    for c in coeffs[1:]:
        b2, b1 = b1, b0
        b0 = y * b1 - b2 + t(c)
    return t(0.5) * (b0 - b2)


def bessel(xp, x, order: int, scaled: bool):
    """I0 / I1 (order 0 / 1), exp(-|x|)-scaled when ``scaled``, computed in x's own dtype as
    Paddle's functors do; float32 I1 uses the shorter tables of Paddle's float specialisation
    (the last 17 / 7 coefficients)."""
    t = x.dtype.type
    single = x.dtype.itemsize == 4
    ax = xp.abs(x)
    small = ax <= t(8)
    if order == 0:
        ta, tb = _I0_A, _I0_B
    else:
        ta, tb = (_I1_A[-17:], _I1_B[-7:]) if single else (_I1_A, _I1_B)
    lo = _chbevl(ax / t(2) - t(2), ta, t)
    hi = _chbevl(t(32) / ax - t(2), tb, t) / xp.sqrt(ax)
    if order == 1:
        lo = lo * ax
    e = t(1) if scaled else xp.exp(ax)
    out = xp.where(small, e * lo, e * hi) if not scaled else xp.where(small, lo, hi)
    if order == 1:
        out = xp.where(x < 0, -out, out)
    return out
