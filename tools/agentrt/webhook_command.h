// tools/agentrt/webhook_command.h
//
//   agentrt webhook serve [--db PATH] --listen HOST:PORT --secret_file FILE
//                         [--max_connections N] [--max_connections_per_address N]
//
// Serves the approval webhook (runtime/operator/approver/webhook/handler.h) over the database until
// SIGINT or SIGTERM: signed HTTP requests list, show, approve, reject and cancel runs there.
// The secret file (mode 600, at least 32 bytes; one trailing newline is not part of it) is the
// secret clients sign with. Prints "listening on http://HOST:PORT" once it accepts requests
// (PORT 0 picks a free port and prints it); every decision and refusal is logged on stderr.
// The server's bounds on connections and on slow requests (runtime/world/http_server.h) keep
// their defaults except the two caps, which the flags set (a proxy in front of the webhook makes
// every client one address).
#pragma once

#include <span>
#include <string>

#include "tools/agentrt/io.h"

namespace agentrt::cli {

int RunWebhookCommand(std::span<const std::string> args, Io& io);

}  // namespace agentrt::cli
