// What a product must not reach: the engine's internals, internal headers and agentrt's tests
// are not on its include path, installed or as a subproject.
#if !__has_include("runtime/driver.h")
#error "the public headers are not on the include path"
#endif
#if __has_include("runtime/engine/chain_check.h") || __has_include("runtime/engine/session.h")
#error "engine internals are reachable"
#endif
#if __has_include("runtime/store/internal/sqlite.h") ||            \
                  __has_include("runtime/store/internal/sql.h") || \
                                __has_include("runtime/world/internal/task_queue.h")
#error "internal headers are reachable"
#endif
#if __has_include("runtime/world/internal/curl_response.h")
#error "the network's internals (and libcurl's header through them) are reachable"
#endif
#if __has_include("tests/runtime/post_tool.h")
#error "agentrt's tests are reachable"
#endif
