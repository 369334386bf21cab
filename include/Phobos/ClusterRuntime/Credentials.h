//===- Credentials.h - Who may talk to the cluster --------------*- C++ -*-===//
//
// Every gRPC connection of the cluster is TLS with certificates from one
// cluster CA, both ways (mutual TLS): a pod or scheduler proves it belongs
// by holding a certificate the CA signed, and checks the same of the other
// side. A shared secret can be added on top: every call then carries it,
// and a call without it is refused. A call that does not prove itself is
// answered with UNAUTHENTICATED before any of it is read.
//
// The files (scripts/cluster-credentials.sh makes them; docs/cluster.md):
//   DIR/ca.pem    the cluster CA's certificate
//   DIR/node.pem  this machine's certificate (subjectAltName DNS:phobos-cluster)
//   DIR/node.key  its private key
//   DIR/secret    optional: the shared secret
//
// --insecure turns all of it off, for loopback addresses only.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_CLUSTERRUNTIME_CREDENTIALS_H
#define PHOBOS_CLUSTERRUNTIME_CREDENTIALS_H

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

#include <memory>
#include <string>

namespace grpc {
class ChannelArguments;
class ChannelCredentials;
class ClientContext;
class ServerBuilder;
class ServerContext;
class ServerCredentials;
class Status;
} // namespace grpc

namespace phobos::cluster::runtime {

/// The name every cluster certificate carries (subjectAltName) and every
/// channel checks, whatever address it dials.
inline constexpr absl::string_view kClusterTlsName = "phobos-cluster";

/// Where the credentials come from: a directory, or files one by one
/// (a file given explicitly wins over the directory's).
struct CredentialOptions {
  std::string directory;
  std::string caFile, certFile, keyFile, secretFile;
  bool insecure = false;
};

/// Loaded credentials.
struct Credentials {
  bool insecure = false;
  std::string caPem, certPem, keyPem;
  /// Empty when no shared secret is used.
  std::string secret;
  /// What was loaded from where, for logs.
  std::string description;
};

/// Reads the files `options` names. Without any, and without --insecure,
/// it is an error that says how to make them.
absl::StatusOr<Credentials> loadCredentials(const CredentialOptions &options);

/// `address` must be HOST:PORT, and with --insecure a loopback address.
absl::Status checkListenAddress(const Credentials &credentials,
                                absl::string_view address);

/// `address` (another node's) must be HOST:PORT with a port from 1 to
/// 65535: a mistyped address is an error, not a wait for a node that
/// cannot come.
absl::Status checkConnectAddress(absl::string_view address);

std::shared_ptr<grpc::ServerCredentials>
serverCredentials(const Credentials &credentials);
std::shared_ptr<grpc::ChannelCredentials>
channelCredentials(const Credentials &credentials);
/// Channel settings: the TLS name, message sizes, quick reconnects. With
/// `keepaliveTimeoutMs` > 0, HTTP/2 pings while a call is open: a peer that
/// answers none for that long (stopped, cut off without a close) ends the
/// channel's calls with UNAVAILABLE.
grpc::ChannelArguments channelArguments(int keepaliveTimeoutMs = 0);
/// Server settings: message sizes, one process per port (no SO_REUSEPORT,
/// so a second scheduler on a taken port fails to start), and the clients'
/// keepalive pings accepted (down to one a second).
void configureServer(grpc::ServerBuilder &builder);

/// Adds what every call carries (the shared secret).
void prepareCall(grpc::ClientContext &context, const Credentials &credentials);

/// OK when the caller proved it belongs (a certificate the cluster CA
/// signed, and the secret when there is one); else UNAUTHENTICATED with the
/// reason.
grpc::Status authorize(const grpc::ServerContext &context,
                       const Credentials &credentials);

/// The largest message the cluster sends (a plan with its leaves).
inline constexpr int kMaxMessageBytes = 256 << 20;

} // namespace phobos::cluster::runtime

#endif // PHOBOS_CLUSTERRUNTIME_CREDENTIALS_H
