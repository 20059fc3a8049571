package dev.spillway.ranks;

/**
 * What one rank of a distributed runtime did.
 *
 * @param rank           this rank.
 * @param tasksHere      user tasks submitted that run on this rank.
 * @param tasksElsewhere user tasks submitted that run on other ranks.
 * @param sends          objects sent to other ranks (completed).
 * @param bytesSent      their bytes.
 * @param receives       objects received from other ranks (completed).
 * @param bytesReceived  their bytes.
 * @param duplicates     notices or data of a version this rank had already moved past, dropped.
 */
public record RankStats(int rank, long tasksHere, long tasksElsewhere, long sends, long bytesSent, long receives,
    long bytesReceived, long duplicates)
{
}
