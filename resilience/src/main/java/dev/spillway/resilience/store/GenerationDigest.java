package dev.spillway.resilience.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a generation holds, for comparing replicas that cut at the same point (design §D.2): SHA-256 over the
 * {@code (tag, version, checksum)} of every block, sorted by tag. The checksums are those the store computed when it
 * wrote the blocks (inherited blocks keep theirs), so the digest reads no data. Replicas run the same deterministic
 * tasks, so equal generations give equal digests exactly, and any difference is a corruption or a bug.
 */
public final class GenerationDigest
{
    private final long globalIndex;
    private final byte[] sha256;
    private final SortedMap<String, ObjectState> objects;

    /** One block's identity in a generation: the version it holds and its {@link BlockChecksum}. */
    public record ObjectState(long version, long checksum)
    {
    }

    private GenerationDigest(final long globalIndex, final SortedMap<String, ObjectState> objects)
    {
        this.globalIndex = globalIndex;
        this.objects = Collections.unmodifiableSortedMap(objects);
        final MessageDigest sha = newSha256();
        final ByteBuffer fields = ByteBuffer.allocate(2 * Long.BYTES + Integer.BYTES);
        objects.forEach((tag, state) ->
        {
            final byte[] name = tag.getBytes(StandardCharsets.UTF_8);
            fields.clear();
            fields.putInt(name.length).putLong(state.version()).putLong(state.checksum());
            sha.update(fields.array());
            sha.update(name);
        });
        this.sha256 = sha.digest();
    }

    /**
     * @param globalIndex the global cut the generation records.
     * @param objects     per tag, the block's version and checksum.
     */
    public static GenerationDigest of(final long globalIndex, final Map<String, ObjectState> objects)
    {
        return new GenerationDigest(globalIndex, new TreeMap<>(objects));
    }

    static GenerationDigest of(final Manifest manifest)
    {
        final SortedMap<String, ObjectState> objects = new TreeMap<>();
        manifest.entries().forEach((tag, e) -> objects.put(tag, new ObjectState(e.version(), e.checksum())));
        return new GenerationDigest(manifest.cut().globalIndex(), objects);
    }

    /** @return the global cut the generation records. */
    public long globalIndex()
    {
        return globalIndex;
    }

    /** @return the 32 bytes replicas exchange at every cut. */
    public byte[] sha256()
    {
        return sha256.clone();
    }

    /** @return per tag, the block's version and checksum: exchanged only when the digests differ. */
    public SortedMap<String, ObjectState> objects()
    {
        return objects;
    }

    /** @return whether {@code other}, a replica's digest of the same cut, is equal to this one. */
    public boolean matches(final byte[] other)
    {
        return MessageDigest.isEqual(sha256, other);
    }

    /**
     * @return whether {@code contents}, from position to limit (left unchanged), are the block of {@code tag} this
     *         digest records: its checksum matches.
     */
    public boolean holds(final String tag, final ByteBuffer contents)
    {
        final ObjectState state = objects.get(tag);
        return state != null && state.checksum() == new BlockChecksum().of(contents);
    }

    /** @return the tags whose block differs (version or checksum) or exists on one side only. */
    public SortedSet<String> differingObjects(final GenerationDigest other)
    {
        final SortedSet<String> tags = new TreeSet<>(objects.keySet());
        tags.addAll(other.objects.keySet());
        tags.removeIf(tag -> Objects.equals(objects.get(tag), other.objects.get(tag)));
        return tags;
    }

    @Override
    public String toString()
    {
        return "generation digest of cut " + globalIndex + ": " + objects.size() + " objects, sha-256 " +
            HexFormat.of().formatHex(sha256, 0, 8) + "…";
    }

    private static MessageDigest newSha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException("every Java platform provides SHA-256", e);
        }
    }
}
