//===- ConvertSignal.cpp - ONNX DFT, STFT, MelWeightMatrix ----------------===//
//
// Part of the Tide project.
//
//===----------------------------------------------------------------------===//
//
// Signal processing as matrix products with constant tables:
//
// - DFT: the signal axis moved last and multiplied by cos and sin tables of
//   the transform's length (computed in double, rounded once to the element
//   type): Re = xr C + xi S, Im = xi C - xr S (the inverse flips the signs
//   of S and divides by the length). A dft_length above the signal's length
//   pads with zeros and one below truncates: both are rows of the tables.
//   The inverse of a one-sided spectrum (NumPy's irfft) is a real signal from
//   tables that count the inner bins twice.
//   O(n^2) work per signal, which is what a matmul does well at the lengths
//   models use; an FFT kernel is not written.
// - STFT: frames gathered from the signal with a constant index table (past
//   the end, a constant mask zeroes them), weighted by the window, then the
//   DFT of each frame.
// - MelWeightMatrix: computed while importing (its inputs are constants),
//   as ONNX's reference defines it.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tide;
using namespace mlir::tide::onnx_import;

namespace {

using Shape = SmallVector<int64_t>;

/// Tables (and gathered frames) above this many elements are an error.
constexpr int64_t kSignalTableLimit = kComputedTableLimit;

/// Whether a * b (both non-negative) exceeds kSignalTableLimit, without
/// overflowing (found by tide-fuzz-onnx: a dft_length of 2^60).
bool exceedsTableLimit(int64_t a, int64_t b) {
  return a > 0 && b > kSignalTableLimit / a;
}

/// A constant of `shape` and float element type `elem` from doubles.
Value floatTable(NodeImporter &n, ArrayRef<int64_t> shape, Type elem,
                 ArrayRef<double> values) {
  return n.constant(makeDense(RankedTensorType::get(shape, elem), {}, values));
}

/// cos and sin of 2 pi m / n for 0 <= m < n, from the angle's quadrant
/// (4 m / n) and the rest within it: multiples of pi / 2 give exact zeros and
/// ones (std::sin(M_PI) is 1.2e-16, which a real signal's DFT turned into
/// imaginary parts of about 1e-15 at bins 0 and n / 2 where NumPy has zeros).
void twiddle(int64_t m, int64_t n, double &c, double &s) {
  int64_t quarter = 4 * m / n, rest = 4 * m % n;
  double angle = M_PI / 2 * static_cast<double>(rest) / n;
  double c0 = rest ? std::cos(angle) : 1, s0 = rest ? std::sin(angle) : 0;
  switch (quarter) {
  case 0:
    c = c0, s = s0;
    break;
  case 1:
    c = -s0, s = c0;
    break;
  case 2:
    c = -c0, s = -s0;
    break;
  default:
    c = s0, s = -c0;
    break;
  }
}

/// An optional constant scalar input as an integer, or `dflt` when absent.
FailureOr<int64_t> scalarIn(NodeImporter &n, unsigned i, StringRef role,
                            int64_t dflt) {
  if (!n.has(i))
    return dflt;
  FailureOr<HostValues> v = n.requireConstIn(i, role);
  if (failed(v))
    return failure();
  if (v->size() != 1)
    return n.fail("'" + role + "' must be a scalar");
  return v->intAt(0);
}

/// The real and imaginary parts of a signal whose last dimension is 1 (real)
/// or 2 (complex), without that dimension (imag is null for a real signal).
LogicalResult splitComplex(NodeImporter &n, Value x, Value &real, Value &imag) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  int64_t parts = type.getDimSize(rank - 1);
  if (parts != 1 && parts != 2)
    return n.fail("the signal's last dimension must be 1 (real) or 2 "
                  "(complex), not " +
                  (ShapedType::isDynamic(parts) ? std::string("dynamic")
                                                : std::to_string(parts)));
  SmallVector<SymDim> dims = n.dimsOf(x);
  dims.pop_back();
  auto part = [&](int64_t i) -> Value {
    Value p = x;
    if (parts == 2)
      p = sliceAlong(n, x, rank - 1, i, i + 1);
    return p ? n.reshapeTo(p, dims) : Value();
  };
  real = part(0);
  if (!real)
    return failure();
  imag = Value();
  if (parts == 2 && !(imag = part(1)))
    return failure();
  return success();
}

/// The DFT along the last axis of `real` (+ i `imag`, which may be null):
/// `length` input samples read (zeros past the signal's end), `bins` output
/// frequencies. Returns (..., bins, 2).
Value transformLast(NodeImporter &n, Value real, Value imag, int64_t length,
                    int64_t bins, bool inverse) {
  auto type = cast<RankedTensorType>(real.getType());
  int64_t rank = type.getRank(), samples = type.getDimSize(rank - 1);
  Type elem = type.getElementType();
  // C[j][k] = cos(2 pi j k / length), S[j][k] = sin(...), j < samples; rows
  // at or past `length` are zero (the signal is truncated).
  std::vector<double> cosT(samples * bins), sinT(samples * bins);
  double scale = inverse ? 1.0 / length : 1.0;
  for (int64_t j = 0; j < samples; ++j)
    for (int64_t k = 0; k < bins; ++k) {
      if (j >= length)
        continue; // Past the length: zero rows (the vectors start at zero).
      // Reduce j * k modulo the length in integers: the angle stays exact.
      double c, s;
      twiddle((j * k) % length, length, c, s);
      cosT[j * bins + k] = c * scale;
      sinT[j * bins + k] = s * scale;
    }
  Value c = floatTable(n, {samples, bins}, elem, cosT);
  Value s = floatTable(n, {samples, bins}, elem, sinT);
  if (!c || !s)
    return {};
  auto product = [&](Value a, Value table) -> Value {
    if (rank == 1) {
      Value m = n.create<MatmulOp>(n.reshape(a, {1, samples}), table);
      return m ? n.reshape(m, {bins}) : Value();
    }
    return n.create<MatmulOp>(a, table);
  };
  // Forward: e^{-i theta}; inverse: e^{+i theta}.
  double sign = inverse ? -1 : 1;
  Value re = product(real, c), im;
  Value rs = product(real, s);
  if (!re || !rs)
    return {};
  im = n.create<MulOp>(rs, n.scalar(elem, -sign));
  if (!im)
    return {};
  if (imag) {
    Value ic = product(imag, c), is = product(imag, s);
    if (!ic || !is)
      return {};
    re = n.create<AddOp>(re, n.create<MulOp>(is, n.scalar(elem, sign)));
    im = n.create<AddOp>(im, ic);
    if (!re || !im)
      return {};
  }
  SmallVector<SymDim> dims = n.dimsOf(re);
  dims.push_back(SymDim::constant(1));
  re = n.reshapeTo(re, dims);
  im = n.reshapeTo(im, dims);
  if (!re || !im)
    return {};
  return n.create<ConcatOp>(ValueRange{re, im}, rank);
}

/// The inverse of a one-sided spectrum along the last axis of `real` (+ i
/// `imag`): NumPy's irfft, a real signal of `length` samples, (..., length,
/// 1). Bins past length / 2 are ignored (missing ones are zeros); the inner
/// bins count twice (their mirror images), and the imaginary parts of bin 0
/// and of bin length / 2 drop out (their sines are zero).
Value inverseOneSided(NodeImporter &n, Value real, Value imag, int64_t length) {
  auto type = cast<RankedTensorType>(real.getType());
  int64_t rank = type.getRank(), bins = type.getDimSize(rank - 1);
  Type elem = type.getElementType();
  std::vector<double> cosT(bins * length), sinT(bins * length);
  for (int64_t k = 0; k < bins; ++k) {
    double weight = 0;
    if (k == 0 || 2 * k == length)
      weight = 1;
    else if (2 * k < length)
      weight = 2;
    for (int64_t j = 0; j < length; ++j) {
      double c, s;
      twiddle((j * k) % length, length, c, s);
      cosT[k * length + j] = weight * c / length;
      sinT[k * length + j] = weight * s / length;
    }
  }
  Value c = floatTable(n, {bins, length}, elem, cosT);
  Value s = floatTable(n, {bins, length}, elem, sinT);
  if (!c || !s)
    return {};
  auto product = [&](Value a, Value table) -> Value {
    if (rank == 1) {
      Value m = n.create<MatmulOp>(n.reshape(a, {1, bins}), table);
      return m ? n.reshape(m, {length}) : Value();
    }
    return n.create<MatmulOp>(a, table);
  };
  Value y = product(real, c);
  if (y && imag) {
    Value is = product(imag, s);
    y = is ? n.create<SubOp>(y, is) : Value();
  }
  if (!y)
    return {};
  SmallVector<SymDim> dims = n.dimsOf(y);
  dims.push_back(SymDim::constant(1));
  return n.reshapeTo(y, dims);
}

LogicalResult convertDFT(NodeImporter &n) {
  if (failed(n.checkAttrs({"axis", "inverse", "onesided"})))
    return failure();
  if (!n.has(0) || !n.in(0))
    return n.fail("needs input 0 (the signal)");
  Value x = n.in(0);
  auto type = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(type.getElementType()))
    return n.fail("DFT needs a floating-point signal");
  int64_t rank = type.getRank();
  if (rank < 2)
    return n.fail("DFT needs a signal of rank 2 or more (the last dimension "
                  "holds the real and imaginary parts)");
  // Opset 20 reads the axis from input 2 (default -2); opset 17 from the
  // attribute (default 1).
  int64_t axis = n.attrInt("axis", 1);
  if (n.opset >= 20) {
    FailureOr<int64_t> a = scalarIn(n, 2, "axis", -2);
    if (failed(a))
      return failure();
    axis = *a;
  }
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank - 2)
    return n.fail("the DFT axis must be a signal axis, in [" + Twine(-rank) +
                  ", -2] or [0, " + Twine(rank - 2) + "]");
  int64_t samples = type.getDimSize(axis);
  if (ShapedType::isDynamic(samples))
    return n.fail("DFT needs a static size on the transformed axis");
  bool inverse = n.attrInt("inverse", 0) != 0;
  bool onesided = n.attrInt("onesided", 0) != 0;
  // The inverse of a one-sided spectrum of m bins is a real signal of
  // 2 (m - 1) samples unless dft_length says otherwise.
  FailureOr<int64_t> length = scalarIn(
      n, 1, "dft_length", inverse && onesided ? 2 * (samples - 1) : samples);
  if (failed(length))
    return failure();
  if (*length < 1)
    return n.fail("dft_length must be positive");
  int64_t bins = onesided && !inverse ? *length / 2 + 1 : *length;
  if (exceedsTableLimit(samples, bins))
    return n.fail("a DFT of " + Twine(samples) + " samples and " + Twine(bins) +
                  " frequencies is too large for Tide's "
                  "matrix form");

  Value real, imag;
  if (failed(splitComplex(n, x, real, imag)))
    return failure();
  // The axis last.
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank - 1; ++i)
    if (i != axis)
      perm.push_back(i);
  perm.push_back(axis);
  bool moved = axis != rank - 2;
  if (moved) {
    bool complex = imag != Value();
    real = n.create<TransposeOp>(real, perm);
    if (complex)
      imag = n.create<TransposeOp>(imag, perm);
    if (!real || (complex && !imag))
      return failure();
  }
  Value y = inverse && onesided
                ? inverseOneSided(n, real, imag, *length)
                : transformLast(n, real, imag, *length, bins, inverse);
  if (!y)
    return failure();
  if (moved) {
    // (others..., bins, 2) back to (..., bins at axis, ..., 2).
    SmallVector<int64_t> back(rank);
    for (int64_t i = 0; i < rank - 1; ++i)
      back[perm[i]] = i;
    back[rank - 1] = rank - 1;
    y = n.create<TransposeOp>(y, back);
  }
  if (!y)
    return failure();
  n.setOut(0, y);
  return success();
}

LogicalResult convertSTFT(NodeImporter &n) {
  if (failed(n.checkAttrs({"onesided"})))
    return failure();
  if (!n.has(0) || !n.in(0))
    return n.fail("needs input 0 (the signal)");
  Value x = n.in(0);
  auto type = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(type.getElementType()))
    return n.fail("STFT needs a floating-point signal");
  if (type.getRank() != 3)
    return n.fail("STFT needs a signal of shape (batch, length, 1 or 2)");
  int64_t length = type.getDimSize(1);
  if (ShapedType::isDynamic(length))
    return n.fail("STFT needs a static signal length");
  FailureOr<int64_t> step = scalarIn(n, 1, "frame_step", 0);
  if (failed(step))
    return failure();
  if (!n.has(1) || *step < 1)
    return n.fail("STFT needs a positive constant frame_step");
  Value window = n.has(2) ? n.in(2) : Value();
  if (n.has(2) && !window)
    return failure();
  int64_t windowSize = -1;
  if (window) {
    auto wt = cast<RankedTensorType>(window.getType());
    if (wt.getRank() != 1 || ShapedType::isDynamic(wt.getDimSize(0)))
      return n.fail("the STFT window must be a vector of static size");
    if (wt.getElementType() != type.getElementType())
      return n.fail("the STFT window's element type differs from the "
                    "signal's");
    windowSize = wt.getDimSize(0);
  }
  FailureOr<int64_t> frameLength =
      scalarIn(n, 3, "frame_length", windowSize >= 0 ? windowSize : length);
  if (failed(frameLength))
    return failure();
  if (*frameLength < 1 || *frameLength > length)
    return n.fail("the STFT frame_length (" + Twine(*frameLength) +
                  ") must be in [1, the signal length " + Twine(length) + "]");
  if (windowSize < 0)
    windowSize = *frameLength;
  if (windowSize < 1)
    return n.fail("the STFT window is empty");
  int64_t frames = 1 + (length - *frameLength) / *step;
  bool onesided = n.attrInt("onesided", 1) != 0;
  int64_t bins = onesided ? *frameLength / 2 + 1 : *frameLength;
  if (exceedsTableLimit(frames, windowSize) ||
      exceedsTableLimit(windowSize, bins))
    return n.fail("an STFT of " + Twine(frames) + " frames of " +
                  Twine(windowSize) +
                  " samples is too large for Tide's "
                  "matrix form");

  Value real, imag;
  if (failed(splitComplex(n, x, real, imag)))
    return failure();
  // Frames: (batch, frames, windowSize), zero past the signal's end.
  std::vector<int64_t> at(frames * windowSize);
  std::vector<double> mask(frames * windowSize);
  bool past = false;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < windowSize; ++j) {
      int64_t pos = f * *step + j;
      at[f * windowSize + j] = std::min(pos, length - 1);
      mask[f * windowSize + j] = pos < length ? 1 : 0;
      past |= pos >= length;
    }
  Type i64 = IntegerType::get(n.ctx, 64), elem = type.getElementType();
  Value index = n.constant(
      makeDense(RankedTensorType::get({frames, windowSize}, i64), at, {}));
  auto frame = [&](Value part) -> Value {
    Value f = takeAlong(n, part, index, 1);
    if (f && past)
      f = n.create<MulOp>(f, floatTable(n, {frames, windowSize}, elem, mask));
    if (f && window)
      f = n.create<MulOp>(f, window);
    return f;
  };
  real = frame(real);
  if (!real || (imag && !(imag = frame(imag))))
    return failure();
  Value y = transformLast(n, real, imag, *frameLength, bins, false);
  if (!y)
    return failure();
  n.setOut(0, y);
  return success();
}

LogicalResult convertMelWeightMatrix(NodeImporter &n) {
  if (failed(n.checkAttrs({"output_datatype"})))
    return failure();
  const char *roles[] = {"num_mel_bins", "dft_length", "sample_rate",
                         "lower_edge_hertz", "upper_edge_hertz"};
  double v[5];
  for (unsigned i = 0; i < 5; ++i) {
    FailureOr<HostValues> h = n.requireConstIn(i, roles[i]);
    if (failed(h))
      return failure();
    if (h->size() != 1)
      return n.fail("'" + Twine(roles[i]) + "' must be a scalar");
    v[i] = h->at(0);
  }
  double rate = v[2], lower = v[3], upper = v[4];
  if (!(v[0] >= 1 && v[0] <= (1 << 16)) || !(v[1] >= 1 && v[1] <= (1 << 24)))
    return n.fail("num_mel_bins and dft_length must be positive (and at "
                  "most 65536 and 2^24)");
  int64_t mels = static_cast<int64_t>(v[0]);
  int64_t dftLength = static_cast<int64_t>(v[1]);
  if (exceedsTableLimit(dftLength / 2 + 1, mels))
    return n.fail("a MelWeightMatrix of " + Twine(dftLength / 2 + 1) + " x " +
                  Twine(mels) + " is too large");
  if (!(rate > 0) || !(lower >= 0) || !(upper > lower) || !std::isfinite(upper))
    return n.fail("MelWeightMatrix needs sample_rate > 0 and 0 <= "
                  "lower_edge_hertz < upper_edge_hertz");
  std::string why;
  Type elem = convertElementType(n.ctx, n.attrInt("output_datatype", 1), why);
  if (!elem)
    return n.fail(why);
  int64_t spectrum = dftLength / 2 + 1;
  // As ONNX's reference: mel-spaced points between the edges, mapped to
  // spectrogram bins, triangles between neighbouring points.
  auto toMel = [](double hz) {
    return 2595 * std::log1p(hz / 700) / std::log(10.0);
  };
  double low = toMel(lower), high = toMel(upper);
  double stepMel = (high - low) / static_cast<double>(mels + 2);
  std::vector<int64_t> bin(mels + 2);
  for (int64_t i = 0; i < mels + 2; ++i) {
    double hz = 700 * std::expm1((i * stepMel + low) / 2595 * std::log(10.0));
    double at = std::floor((dftLength + 1) * hz / rate);
    // Past the spectrum (or not a number): set() reports it below.
    bin[i] =
        at >= 0 && at <= spectrum + 1 ? static_cast<int64_t>(at) : spectrum + 1;
  }
  std::vector<double> out(spectrum * mels, 0.0);
  auto set = [&](int64_t j, int64_t i, double value) -> LogicalResult {
    if (j < 0 || j >= spectrum)
      return n.fail("MelWeightMatrix: upper_edge_hertz lies past the "
                    "Nyquist frequency (sample_rate / 2)");
    out[j * mels + i] = value;
    return success();
  };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = bin[i], center = bin[i + 1], right = bin[i + 2];
    if (center == left) {
      if (failed(set(center, i, 1)))
        return failure();
    } else {
      for (int64_t j = left; j <= center; ++j)
        if (failed(set(j, i, double(j - left) / double(center - left))))
          return failure();
    }
    for (int64_t j = center; j < right; ++j)
      if (failed(set(j, i, double(right - j) / double(right - center))))
        return failure();
  }
  std::vector<int64_t> ints(out.begin(), out.end());
  n.setConstOut(
      0, makeDense(RankedTensorType::get({spectrum, mels}, elem), ints, out));
  return success();
}

} // namespace

void onnx_import::addSignalConverters(llvm::StringMap<Converter> &table) {
  table["DFT"] = convertDFT;
  table["STFT"] = convertSTFT;
  table["MelWeightMatrix"] = convertMelWeightMatrix;
}
