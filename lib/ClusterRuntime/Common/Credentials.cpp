//===- Credentials.cpp - Who may talk to the cluster ----------------------===//

#include "Phobos/ClusterRuntime/Credentials.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include <grpc/grpc_security_constants.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <tuple>
#include <sys/stat.h>

using namespace phobos::cluster::runtime;

/// The metadata key that carries the shared secret.
static constexpr char kSecretKey[] = "phobos-cluster-secret";

static absl::StatusOr<std::string> readFile(const std::string &path,
                                            absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(
        absl::StrCat("cannot read the ", what, " '", path, "'"));
  std::stringstream contents;
  contents << in.rdbuf();
  if (contents.str().empty())
    return absl::InvalidArgumentError(
        absl::StrCat("the ", what, " '", path, "' is empty"));
  return contents.str();
}

static bool exists(const std::string &path) {
  struct stat status;
  return ::stat(path.c_str(), &status) == 0;
}

namespace {
struct BioDeleter {
  void operator()(BIO *bio) const { BIO_free(bio); }
};
struct X509Deleter {
  void operator()(X509 *certificate) const { X509_free(certificate); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};

std::unique_ptr<X509, X509Deleter> parseCertificate(const std::string &pem) {
  std::unique_ptr<BIO, BioDeleter> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  return std::unique_ptr<X509, X509Deleter>(
      bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}
} // namespace

/// What TLS would find wrong with this machine's credentials, found before
/// any server starts and named: a key that is not the certificate's (gRPC
/// then fails to listen, which read as "the address is taken"), a
/// certificate the CA did not sign, or one that does not name the cluster.
static absl::Status checkKeyPair(const std::string &caPem,
                                 const std::string &certPem,
                                 const std::string &keyPem,
                                 const std::string &caPath,
                                 const std::string &certPath,
                                 const std::string &keyPath) {
  auto invalid = [](auto... parts) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(parts...));
  };
  std::unique_ptr<X509, X509Deleter> caCertificate = parseCertificate(caPem);
  if (!caCertificate)
    return invalid("the cluster CA certificate '", caPath,
                   "' is not a PEM certificate");
  std::unique_ptr<X509, X509Deleter> certificate = parseCertificate(certPem);
  if (!certificate)
    return invalid("the certificate '", certPath, "' is not a PEM certificate");
  std::unique_ptr<BIO, BioDeleter> bio(
      BIO_new_mem_buf(keyPem.data(), static_cast<int>(keyPem.size())));
  std::unique_ptr<EVP_PKEY, KeyDeleter> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
          : nullptr);
  if (!key)
    return invalid("the private key '", keyPath,
                   "' is not a PEM private key (without a passphrase)");
  if (X509_check_private_key(certificate.get(), key.get()) != 1)
    return invalid("the private key '", keyPath,
                   "' is not the key of the certificate '", certPath,
                   "': give the key made with that certificate");
  EVP_PKEY *caKey = X509_get0_pubkey(caCertificate.get());
  if (!caKey || X509_verify(certificate.get(), caKey) != 1)
    return invalid("the certificate '", certPath,
                   "' is not signed by the cluster CA '", caPath,
                   "': make it with scripts/cluster-credentials.sh and that CA");
  // A certificate out of its validity fails every handshake, on the other
  // side, as "certificate verify failed": said here, with its dates.
  for (auto [cert, path, what] :
       {std::tuple<X509 *, const std::string *, const char *>{
            certificate.get(), &certPath, "certificate"},
        {caCertificate.get(), &caPath, "cluster CA certificate"}}) {
    auto date = [](const ASN1_TIME *time) {
      std::unique_ptr<BIO, BioDeleter> out(BIO_new(BIO_s_mem()));
      char *text = nullptr;
      if (!out || ASN1_TIME_print(out.get(), time) != 1)
        return std::string("?");
      long length = BIO_get_mem_data(out.get(), &text);
      return std::string(text, static_cast<size_t>(length));
    };
    if (X509_cmp_current_time(X509_get0_notAfter(cert)) <= 0)
      return invalid("the ", what, " '", *path, "' expired on ",
                     date(X509_get0_notAfter(cert)),
                     ": make new credentials with scripts/cluster-credentials.sh");
    if (X509_cmp_current_time(X509_get0_notBefore(cert)) >= 0)
      return invalid("the ", what, " '", *path, "' is not valid before ",
                     date(X509_get0_notBefore(cert)),
                     " (is this machine's clock right?)");
  }
  if (X509_check_host(certificate.get(), kClusterTlsName.data(),
                      kClusterTlsName.size(), 0, nullptr) != 1)
    return invalid("the certificate '", certPath, "' does not name '",
                   kClusterTlsName,
                   "' (subjectAltName DNS:", kClusterTlsName,
                   "), the name every member of the cluster checks: make it "
                   "with scripts/cluster-credentials.sh");
  return absl::OkStatus();
}

absl::StatusOr<Credentials>
phobos::cluster::runtime::loadCredentials(const CredentialOptions &options) {
  Credentials credentials;
  bool anyFile = !options.directory.empty() || !options.caFile.empty() ||
                 !options.certFile.empty() || !options.keyFile.empty() ||
                 !options.secretFile.empty();
  if (options.insecure) {
    if (anyFile)
      return absl::InvalidArgumentError(
          "--insecure and credentials exclude each other");
    credentials.insecure = true;
    credentials.description = "insecure (no TLS, no authentication)";
    return credentials;
  }
  if (!anyFile)
    return absl::FailedPreconditionError(
        "no credentials: give --credentials DIR (ca.pem, node.pem, node.key "
        "and optionally secret, made by scripts/cluster-credentials.sh DIR), "
        "set PHOBOS_CLUSTER_CREDENTIALS=DIR, or use --insecure on loopback "
        "addresses");
  auto pick = [&](const std::string &given, absl::string_view name) {
    if (!given.empty())
      return given;
    if (options.directory.empty())
      return std::string();
    return absl::StrCat(options.directory, "/", name);
  };
  std::string ca = pick(options.caFile, "ca.pem");
  std::string cert = pick(options.certFile, "node.pem");
  std::string key = pick(options.keyFile, "node.key");
  std::string secret = options.secretFile;
  if (secret.empty() && !options.directory.empty() &&
      exists(options.directory + "/secret"))
    secret = options.directory + "/secret";
  if (ca.empty() || cert.empty() || key.empty())
    return absl::InvalidArgumentError(
        "mutual TLS needs the cluster CA (--ca), this machine's certificate "
        "(--cert) and its key (--key), or --credentials DIR");
  absl::StatusOr<std::string> caPem = readFile(ca, "cluster CA certificate");
  if (!caPem.ok())
    return caPem.status();
  absl::StatusOr<std::string> certPem = readFile(cert, "certificate");
  if (!certPem.ok())
    return certPem.status();
  absl::StatusOr<std::string> keyPem = readFile(key, "private key");
  if (!keyPem.ok())
    return keyPem.status();
  if (absl::Status status = checkKeyPair(*caPem, *certPem, *keyPem, ca, cert, key);
      !status.ok())
    return status;
  credentials.caPem = std::move(*caPem);
  credentials.certPem = std::move(*certPem);
  credentials.keyPem = std::move(*keyPem);
  credentials.description = absl::StrCat("mutual TLS (CA ", ca, ")");
  if (!secret.empty()) {
    absl::StatusOr<std::string> text = readFile(secret, "shared secret");
    if (!text.ok())
      return text.status();
    credentials.secret = std::string(absl::StripAsciiWhitespace(*text));
    if (credentials.secret.size() < 16)
      return absl::InvalidArgumentError(absl::StrCat(
          "the shared secret in '", secret,
          "' is shorter than 16 characters; make one with "
          "scripts/cluster-credentials.sh"));
    absl::StrAppend(&credentials.description, " and a shared secret (",
                    secret, ")");
  }
  return credentials;
}

absl::Status
phobos::cluster::runtime::checkListenAddress(const Credentials &credentials,
                                             absl::string_view address) {
  size_t colon = address.rfind(':');
  int port = -1;
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535)
    return absl::InvalidArgumentError(absl::StrCat(
        "'", address, "' is not an address to listen on: expected HOST:PORT "
        "with a port from 0 to 65535"));
  if (!credentials.insecure)
    return absl::OkStatus();
  for (absl::string_view loopback : {"127.", "localhost:", "[::1]:"})
    if (absl::StartsWith(address, loopback))
      return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "--insecure listens on loopback addresses only (127.0.0.1:PORT, "
      "localhost:PORT, [::1]:PORT), not '",
      address, "': make cluster credentials (docs/cluster.md)"));
}

absl::Status
phobos::cluster::runtime::checkConnectAddress(absl::string_view address) {
  size_t colon = address.rfind(':');
  int port = 0;
  if (colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 1 ||
      port > 65535)
    return absl::InvalidArgumentError(absl::StrCat(
        "'", address, "' is not an address to connect to: expected HOST:PORT "
        "with a port from 1 to 65535"));
  return absl::OkStatus();
}

std::shared_ptr<grpc::ServerCredentials>
phobos::cluster::runtime::serverCredentials(const Credentials &credentials) {
  if (credentials.insecure)
    return grpc::InsecureServerCredentials();
  // Verify a client certificate when one is presented; a call without one
  // reaches authorize(), which answers UNAUTHENTICATED (a refused
  // handshake would only say UNAVAILABLE).
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = credentials.caPem;
  options.pem_key_cert_pairs.push_back({credentials.keyPem, credentials.certPem});
  return grpc::SslServerCredentials(options);
}

std::shared_ptr<grpc::ChannelCredentials>
phobos::cluster::runtime::channelCredentials(const Credentials &credentials) {
  if (credentials.insecure)
    return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = credentials.caPem;
  options.pem_private_key = credentials.keyPem;
  options.pem_cert_chain = credentials.certPem;
  return grpc::SslCredentials(options);
}

grpc::ChannelArguments
phobos::cluster::runtime::channelArguments(int keepaliveTimeoutMs) {
  grpc::ChannelArguments arguments;
  if (keepaliveTimeoutMs > 0) {
    // A ping every half of the timeout, each answered within the other half.
    arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, std::max(500, keepaliveTimeoutMs / 2));
    arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, std::max(500, keepaliveTimeoutMs / 2));
    arguments.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  }
  arguments.SetSslTargetNameOverride(std::string(kClusterTlsName));
  arguments.SetMaxReceiveMessageSize(kMaxMessageBytes);
  arguments.SetMaxSendMessageSize(kMaxMessageBytes);
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Each channel its own connection: pods fetching big tiles from one
  // holder do not queue behind each other's streams.
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return arguments;
}

void phobos::cluster::runtime::configureServer(grpc::ServerBuilder &builder) {
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Pods ping the scheduler (channelArguments): answer, never GOAWAY.
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 500);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
}

void phobos::cluster::runtime::prepareCall(grpc::ClientContext &context,
                                           const Credentials &credentials) {
  if (!credentials.secret.empty())
    context.AddMetadata(kSecretKey, credentials.secret);
}

/// Compares without an early exit, so that timing says nothing of where a
/// guess went wrong.
static bool sameSecret(absl::string_view given, absl::string_view expected) {
  unsigned char difference = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i)
    difference |= static_cast<unsigned char>(
        (i < given.size() ? given[i] : 0) ^ expected[i]);
  return difference == 0;
}

grpc::Status
phobos::cluster::runtime::authorize(const grpc::ServerContext &context,
                                    const Credentials &credentials) {
  if (credentials.insecure)
    return grpc::Status::OK;
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (!auth || !auth->IsPeerAuthenticated())
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "no client certificate from the cluster CA: this "
                        "caller does not belong to the cluster");
  // The CA may sign certificates for other uses: a cluster member's names
  // kClusterTlsName, as the clients check of the servers.
  std::vector<grpc::string_ref> names =
      auth->FindPropertyValues(GRPC_X509_SAN_PROPERTY_NAME);
  bool named = std::any_of(names.begin(), names.end(), [](const grpc::string_ref &name) {
    return absl::string_view(name.data(), name.size()) == kClusterTlsName;
  });
  if (!named) {
    std::vector<std::string> shown;
    for (const grpc::string_ref &name : names)
      shown.emplace_back(name.data(), name.size());
    for (const grpc::string_ref &name :
         auth->FindPropertyValues(GRPC_X509_CN_PROPERTY_NAME))
      shown.push_back("CN=" + std::string(name.data(), name.size()));
    return grpc::Status(
        grpc::StatusCode::UNAUTHENTICATED,
        absl::StrCat("the client certificate names ",
                     shown.empty() ? "nothing" : absl::StrJoin(shown, ", "),
                     ", not '", kClusterTlsName,
                     "': the cluster CA signed it for something else"));
  }
  if (!credentials.secret.empty()) {
    const auto &metadata = context.client_metadata();
    auto found = metadata.find(kSecretKey);
    if (found == metadata.end())
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "no shared secret: this cluster requires one");
    absl::string_view given(found->second.data(), found->second.size());
    if (!sameSecret(given, credentials.secret))
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "wrong shared secret");
  }
  return grpc::Status::OK;
}
