<?php

declare(strict_types=1);

namespace Delayq;

/**
 * An error answer of delayq: `code` is the catalogue code (docs/errors.md), e.g. E_TOKEN_MISMATCH; `field`
 * the request field at fault; `status` the HTTP status (0 when the server could not be reached).
 */
final class DelayqException extends \RuntimeException
{
    /** @param array<string, mixed> $details */
    public function __construct(
        public readonly string $errorCode,
        string $message,
        public readonly ?string $field = null,
        public readonly array $details = [],
        public readonly int $status = 0,
    ) {
        parent::__construct("{$errorCode}: {$message}", $status);
    }
}
