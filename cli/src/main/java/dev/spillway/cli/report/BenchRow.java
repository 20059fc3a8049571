package dev.spillway.cli.report;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.io.IOException;

/**
 * One measured configuration of {@code spillway bench kernels}. Times are seconds; a time that was not measured is
 * NaN, written to JSON as {@code null} and read back from {@code null} or an absent key.
 *
 * @param kernel             kernel name, e.g. "matmul".
 * @param n                  matrix order, or cells for the stencil.
 * @param tile               tile order.
 * @param fraction           percent of the data that fits in the DRAM budget, e.g. 12.5.
 * @param policy             policy letters, e.g. "p,s,d", or "default".
 * @param timeS              Spillway time at this fraction.
 * @param incoreTimeS        Spillway time with all data in DRAM.
 * @param mmapTimeS          time of the mmap baseline at this fraction.
 * @param spillwayOverIncore {@code timeS / incoreTimeS}: above 1, out of core is slower than in core.
 * @param mmapOverSpillway   {@code mmapTimeS / timeS}: above 1, mmap is slower than Spillway.
 * @param bytesRead          bytes read from the store.
 * @param bytesWritten       bytes written to the store.
 * @param ioLowerBoundBytes  a lower bound on bytes read and written together at this fraction (the kernel's
 *                           {@code ioLowerBound}); 0 where the budget holds the data or none was given.
 * @param verified           whether the result passed verification.
 * @param starpuTimeS        StarPU's time at this fraction, measured in the same run ({@code --peer starpu}).
 * @param starpuIncoreTimeS  StarPU's time in core, measured in the same run.
 */
public record BenchRow(
    @JsonProperty("kernel") String kernel,
    @JsonProperty("n") long n,
    @JsonProperty("tile") int tile,
    @JsonProperty("fraction") double fraction,
    @JsonProperty("policy") String policy,
    @JsonProperty("time_s") @JsonSerialize(using = NanAsNull.class) @JsonDeserialize(using = NullAsNan.class)
    double timeS,
    @JsonProperty("incore_time_s") @JsonSerialize(using = NanAsNull.class) @JsonDeserialize(using = NullAsNan.class)
    double incoreTimeS,
    @JsonProperty("mmap_time_s") @JsonSerialize(using = NanAsNull.class) @JsonDeserialize(using = NullAsNan.class)
    double mmapTimeS,
    @JsonProperty("spillway_over_incore") @JsonSerialize(using = NanAsNull.class)
    @JsonDeserialize(using = NullAsNan.class) double spillwayOverIncore,
    @JsonProperty("mmap_over_spillway") @JsonSerialize(using = NanAsNull.class)
    @JsonDeserialize(using = NullAsNan.class) double mmapOverSpillway,
    @JsonProperty("bytes_read") long bytesRead,
    @JsonProperty("bytes_written") long bytesWritten,
    @JsonProperty("io_lower_bound_bytes") long ioLowerBoundBytes,
    @JsonProperty("verified") boolean verified,
    @JsonProperty("starpu_time_s") @JsonSerialize(using = NanAsNull.class) @JsonDeserialize(using = NullAsNan.class)
    double starpuTimeS,
    @JsonProperty("starpu_incore_time_s") @JsonSerialize(using = NanAsNull.class)
    @JsonDeserialize(using = NullAsNan.class) double starpuIncoreTimeS)
{
    /** @return a row whose ratios are computed from the times (NaN where a time is NaN). */
    public static BenchRow of(final String kernel, final long n, final int tile, final double fraction,
        final String policy, final double timeS, final double incoreTimeS, final double mmapTimeS,
        final long bytesRead, final long bytesWritten, final long ioLowerBoundBytes, final boolean verified)
    {
        return new BenchRow(kernel, n, tile, fraction, policy, timeS, incoreTimeS, mmapTimeS, timeS / incoreTimeS,
            mmapTimeS / timeS, bytesRead, bytesWritten, ioLowerBoundBytes, verified, Double.NaN, Double.NaN);
    }

    /** @return this row with StarPU's times from the same run. */
    public BenchRow withStarpu(final double starpuTime, final double starpuIncoreTime)
    {
        return new BenchRow(kernel, n, tile, fraction, policy, timeS, incoreTimeS, mmapTimeS, spillwayOverIncore,
            mmapOverSpillway, bytesRead, bytesWritten, ioLowerBoundBytes, verified, starpuTime, starpuIncoreTime);
    }

    /** @return StarPU's time over its in-core time, NaN where either was not measured. */
    public double starpuOverIncore()
    {
        return starpuTimeS / starpuIncoreTimeS;
    }

    /** @return bytes read and written over the lower bound, NaN where the bound is 0. */
    public double movedOverBound()
    {
        return ioLowerBoundBytes == 0 ? Double.NaN : (bytesRead + bytesWritten) / (double)ioLowerBoundBytes;
    }

    /** Writes NaN and infinities as {@code null}: JSON has no such numbers. */
    static final class NanAsNull extends JsonSerializer<Double>
    {
        @Override
        public void serialize(final Double value, final JsonGenerator g, final SerializerProvider provider)
            throws IOException
        {
            if (value == null || value.isNaN() || value.isInfinite())
            {
                g.writeNull();
            }
            else
            {
                g.writeNumber(value);
            }
        }
    }

    /** Reads {@code null} or an absent key as NaN. */
    static final class NullAsNan extends JsonDeserializer<Double>
    {
        @Override
        public Double deserialize(final JsonParser p, final DeserializationContext context) throws IOException
        {
            return p.getValueAsDouble(Double.NaN);
        }

        @Override
        public Double getNullValue(final DeserializationContext context)
        {
            return Double.NaN;
        }

        @Override
        public Object getAbsentValue(final DeserializationContext context)
        {
            return Double.NaN;
        }
    }
}
