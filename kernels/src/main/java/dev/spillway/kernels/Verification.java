package dev.spillway.kernels;

/**
 * A kernel's verdict on its own result.
 *
 * @param verified whether the residual is within {@code tolerance}.
 * @param residual the measured residual: normalised backward error (dense), max abs difference (stencil).
 * @param tolerance the bound the residual had to meet.
 * @param method    how it was measured, such as {@code "all rows"} or {@code "16 sampled rows"}.
 */
public record Verification(boolean verified, double residual, double tolerance, String method)
{
}
