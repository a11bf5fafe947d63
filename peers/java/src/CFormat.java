import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * C's printf("%.17g"). Java's own %g differs (it never drops trailing zeros and switches to
 * exponent form at other bounds), and the answers must read the same as the Rust side's.
 */
final class CFormat {
    private static final int PRECISION = 17;
    private static final MathContext ROUND = new MathContext(PRECISION, RoundingMode.HALF_EVEN);

    private CFormat() {}

    static String g17(double v) {
        if (Double.isNaN(v)) return "nan";
        if (Double.isInfinite(v)) return v > 0 ? "inf" : "-inf";
        if (v == 0.0) return Double.doubleToRawLongBits(v) < 0 ? "-0" : "0";

        // new BigDecimal(double) is the exact binary value, so rounding it half-even is what
        // glibc does with the default rounding mode.
        BigDecimal rounded = new BigDecimal(v).round(ROUND);
        String digits = rounded.unscaledValue().abs().toString();
        int exponent = digits.length() - rounded.scale() - 1;
        digits = stripTrailingZeros(digits);

        StringBuilder out = new StringBuilder(32);
        if (v < 0) out.append('-');
        if (exponent < -4 || exponent >= PRECISION) {
            out.append(digits.charAt(0));
            if (digits.length() > 1) out.append('.').append(digits, 1, digits.length());
            out.append(exponent < 0 ? "e-" : "e+");
            int e = Math.abs(exponent);
            if (e < 10) out.append('0');
            out.append(e);
        } else if (exponent >= 0) {
            if (digits.length() <= exponent + 1) {
                out.append(digits).append("0".repeat(exponent + 1 - digits.length()));
            } else {
                out.append(digits, 0, exponent + 1).append('.')
                   .append(digits, exponent + 1, digits.length());
            }
        } else {
            out.append("0.").append("0".repeat(-exponent - 1)).append(digits);
        }
        return out.toString();
    }

    private static String stripTrailingZeros(String digits) {
        int end = digits.length();
        while (end > 1 && digits.charAt(end - 1) == '0') end--;
        return digits.substring(0, end);
    }
}
