// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ZoneParameters, Schema} from "seaport-types/src/lib/ConsiderationStructs.sol";

/// The sandbox's signed zone. Fulfilling a zone-protected order needs a signature from an active
/// signer of the marketplace, with an expiry, in the fulfillment's extraData:
///
///   extraData = expiration (uint64, 8 bytes) ++ signature (65 bytes, r ++ s ++ v)
///
/// signed as EIP-712 `SignedOrder(address fulfiller,uint64 expiration,bytes32 orderHash,bytes32 considerationHash)`
/// where considerationHash = keccak256(abi.encode(resolved consideration items)). Binding the
/// resolved consideration means a signature issued after checking a token's traits is valid for
/// that token only. Stopping issuing signatures cancels an order off-chain once the last one expires.
contract SandboxSignedZone {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant SIGNED_ORDER_TYPEHASH =
        keccak256("SignedOrder(address fulfiller,uint64 expiration,bytes32 orderHash,bytes32 considerationHash)");
    bytes32 private constant NAME_HASH = keccak256("SandboxSignedZone");
    bytes32 private constant VERSION_HASH = keccak256("1");

    address public owner;
    mapping(address => bool) public isSigner;

    event SignerUpdated(address indexed signer, bool active);

    error InvalidExtraData(uint256 length);
    error SignatureExpired(uint256 expiration, uint256 now_);
    error SignerNotActive(address recovered);
    error NotOwner();

    constructor(address signer) {
        owner = msg.sender;
        isSigner[signer] = true;
        emit SignerUpdated(signer, true);
    }

    function updateSigner(address signer, bool active) external {
        if (msg.sender != owner) revert NotOwner();
        isSigner[signer] = active;
        emit SignerUpdated(signer, active);
    }

    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// Called by Seaport before transfers. The check happens in validateOrder, after criteria are
    /// resolved and items moved, so the signature can bind the exact tokens exchanged.
    function authorizeOrder(ZoneParameters calldata) external pure returns (bytes4) {
        return this.authorizeOrder.selector;
    }

    function validateOrder(ZoneParameters calldata zp) external view returns (bytes4) {
        bytes calldata extra = zp.extraData;
        if (extra.length != 73) revert InvalidExtraData(extra.length);
        uint64 expiration = uint64(bytes8(extra[0:8]));
        if (expiration < block.timestamp) revert SignatureExpired(expiration, block.timestamp);
        bytes32 considerationHash = keccak256(abi.encode(zp.consideration));
        bytes32 structHash =
            keccak256(abi.encode(SIGNED_ORDER_TYPEHASH, zp.fulfiller, expiration, zp.orderHash, considerationHash));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
        bytes32 r = bytes32(extra[8:40]);
        bytes32 s = bytes32(extra[40:72]);
        uint8 v = uint8(extra[72]);
        address recovered = ecrecover(digest, v, r, s);
        if (recovered == address(0) || !isSigner[recovered]) revert SignerNotActive(recovered);
        return this.validateOrder.selector;
    }

    function getSeaportMetadata() external pure returns (string memory name, Schema[] memory schemas) {
        name = "SandboxSignedZone";
        schemas = new Schema[](0);
    }

    function supportsInterface(bytes4 id) external pure returns (bool) {
        // ERC165 and ZoneInterface (authorizeOrder ^ validateOrder ^ getSeaportMetadata ^ supportsInterface).
        return id == 0x01ffc9a7 || id == type(ZoneLike).interfaceId;
    }
}

interface ZoneLike {
    function authorizeOrder(ZoneParameters calldata zoneParameters) external returns (bytes4);
    function validateOrder(ZoneParameters calldata zoneParameters) external returns (bytes4);
    function getSeaportMetadata() external view returns (string memory name, Schema[] memory schemas);
}
