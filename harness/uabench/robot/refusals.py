"""The negative security tests of the encryption suite: what a server must refuse."""

from __future__ import annotations

from robot.api import SkipExecution
from robot.api.deco import keyword

from uabench import sdks
from uabench.engine import search, security_probe
from uabench.engine.cells import Outcome
from uabench.engine.keywords import NEGATIVE_WORKLOAD, conclude
from uabench.pki import Identity
from uabench.results.kinds import CellKind
from uabench.robot.cells import Cells


class RefusalKeywords(Cells):
    """Untrusted Client Should Be Rejected, Unoffered Policy Should Be Refused."""

    @keyword
    def untrusted_client_should_be_rejected(self, client: str, server: str) -> None:
        """The server itself must refuse a channel from a client whose certificate it does not
        trust (a security-related Bad status to the security probe, not a timeout or a closed
        socket), and then still serve the trusted `client`."""
        _needs_a_secure_channel(client, server)
        session = self.run.session()
        running = session.pool.get(sdks.get(server), warm=False)
        security = {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}
        self._expect_refusal(client, server, "untrusted certificate", security, session.pki.stranger, running)

    @keyword
    def unoffered_policy_should_be_refused(self, client: str, server: str) -> None:
        """A server offering only None and Basic256Sha256/SignAndEncrypt must itself refuse a
        channel asking for Basic256Sha256/Sign: the security probe asks it without matching
        endpoints first (a client that does gives up on its own and asks no server)."""
        _needs_a_secure_channel(client, server)  # a server without it cannot even offer the endpoints
        session = self.run.session()
        endpoints = [{"policy": "None", "mode": "None"}, {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}]
        security_config = dict(session.pool.config(sdks.get(server))["security"], endpoints=endpoints)
        running = session.pool.get(sdks.get(server), warm=False, security=security_config)
        security = {"policy": "Basic256Sha256", "mode": "Sign"}
        self._expect_refusal(client, server, "unoffered policy", security, session.pki.client, running)

    def _expect_refusal(
        self, client_id: str, server_id: str, what: str, security: dict, identity: Identity, running
    ) -> None:
        session = self.run.session()
        client, server = sdks.get(client_id), sdks.get(server_id)
        trusted = TRUSTED_SECURITY
        config = session.client_config(running, {"probe": security_probe.version()}, security, identity)
        found = security_probe.handshake(
            running.endpoint, security["policy"], security["mode"], identity, session.pki.server.certificate
        )
        verdict = security_probe.judge(found, running.alive, f"a client with an {what}")
        reason = verdict.reason
        if verdict.refused:  # a refusal that leaves the server unable to serve is no refusal
            after = session.run_client(
                client, running, session.client_config(running, dict(NEGATIVE_WORKLOAD), trusted)
            )
            if after.status != "pass":
                verdict = security_probe.Verdict(
                    False,
                    f"{reason}, but then the trusted {client_id} client failed: {search.first_line(after.reason)}",
                )
        outcome = Outcome(
            "pass" if verdict.refused else "fail",
            verdict.reason,
            result={
                "probe": {
                    **security,
                    "step": found.step,
                    "status": found.status,
                    "ms": found.ms,
                    "detail": found.detail,
                }
            },
        )
        session.recorder.record(CellKind.NEGATIVE, client, server, what, 0, config, outcome, running.config)
        conclude(security_probe.refusal_finding(server, what, found, verdict, running.alive))


TRUSTED_SECURITY = {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}


def _needs_a_secure_channel(client_id: str, server_id: str) -> None:
    """The negative security tests need a Basic256Sha256/SignAndEncrypt channel on both sides."""
    if not all(sdks.get(sdk).offers(**TRUSTED_SECURITY) for sdk in (client_id, server_id)):
        raise SkipExecution(f"not supported: {server_id} or {client_id} lacks Basic256Sha256/SignAndEncrypt")
